"""boxtree against the Python code it replaces, in one run.

Workloads (the crate's test data):
  - 1M segments on the Stanford bunny: any hit, and closest hit over [0, 1];
  - 10k poses of FCL's robot against its environment: overlap;
  - 100k points around the bunny: closest point on the surface.

Against trimesh's own numpy code (ray_triangle, proximity), embreex (Embree
through trimesh's usual backend) and python-fcl, each imported only when
installed. The slow pure-numpy paths run on a subset of the batch and are
reported per query. Every time is the median of several runs; per-call
cost is one query's call from Python.

    python bench/bench.py            # everything
    python bench/bench.py --quick    # 10x smaller batches
    python bench/bench.py --only overlap
    RAYON_NUM_THREADS=1 python bench/bench.py   # boxtree on one core
"""

import argparse
import os
import statistics
import time
from pathlib import Path

# numpy's OpenBLAS threads spin between calls and would take a core from
# every library's batches; none of the timed code needs BLAS threads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import boxtree  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def median_time(call, repeat):
    """Median wall time of call() over repeat runs (after one warm-up run)."""
    call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_call(call, repeat=2000):
    """Median cost of one small call from Python, in microseconds."""
    return median_time(call, repeat) * 1e6


class Report:
    """Rows of (workload, library, queries timed, median, throughput)."""

    def __init__(self):
        self.rows = []

    def add(self, workload, library, count, seconds, note=""):
        self.rows.append((workload, library, count, seconds, count / seconds, note))
        print(
            f"{workload:<28} {library:<26} {count:>9,} {seconds * 1e3:>10.2f} ms "
            f"{count / seconds / 1e6:>9.3f} M/s  {note}",
            flush=True,
        )

    def ratios(self):
        print("\nboxtree's throughput over each other library's (same workload):")
        by_workload = {}
        for workload, library, _, _, rate, _ in self.rows:
            by_workload.setdefault(workload, {})[library] = rate
        for workload, rates in by_workload.items():
            ours = {k: v for k, v in rates.items() if k.startswith("boxtree")}
            theirs = {k: v for k, v in rates.items() if not k.startswith("boxtree")}
            for mine, mine_rate in ours.items():
                for other, rate in theirs.items():
                    print(f"  {workload:<28} {mine:<26} vs {other:<22} {mine_rate / rate:>8.1f}x")


def optional(name):
    try:
        return __import__(name)
    except ImportError:
        print(f"({name} is not installed: its rows are skipped)")
        return None


def around(bounds, rng, n, spread=0.6):
    lo, hi = bounds.astype(np.float64)
    centre, size = (lo + hi) / 2, hi - lo
    return (centre + rng.uniform(-0.5 - spread, 0.5 + spread, size=(n, 3)) * size).astype(
        np.float32
    )


def random_poses(rng, n, lo, hi):
    """n rigid 4x4 poses: uniform random rotations, translations in [lo, hi]."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    poses = np.zeros((n, 4, 4))
    poses[:, 0, :3] = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], 1)
    poses[:, 1, :3] = np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], 1)
    poses[:, 2, :3] = np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], 1)
    poses[:, :3, 3] = rng.uniform(lo, hi, size=(n, 3))
    poses[:, 3, 3] = 1
    return poses


def rays(report, args, rng, trimesh, embreex):
    mesh = boxtree.Mesh.load(DATA / "bunny.obj")
    tree = boxtree.MeshTree(mesh)
    n = args.segments
    origins, ends = around(mesh.bounds, rng, n), around(mesh.bounds, rng, n)
    directions = ends - origins
    print(f"\nbunny: {len(mesh)} triangles, {n:,} segments "
          f"({(tree.any_hit(origins, ends) >= 0).mean():.0%} blocked)")

    report.add("any hit (segments)", "boxtree aabb", n,
               median_time(lambda: tree.any_hit(origins, ends), args.repeat))
    report.add("closest hit (t in [0,1])", "boxtree aabb", n,
               median_time(lambda: tree.closest_hit(origins, directions, 1.0), args.repeat))
    obb = boxtree.MeshTree(mesh, volume="obb")
    report.add("any hit (segments)", "boxtree obb", n,
               median_time(lambda: obb.any_hit(origins, ends), args.repeat))
    report.add("closest hit (t in [0,1])", "boxtree obb", n,
               median_time(lambda: obb.closest_hit(origins, directions, 1.0), args.repeat))
    o1, e1 = origins[0], ends[0]
    print(f"  per-call cost from Python: any_hit one segment {per_call(lambda: tree.any_hit(o1, e1)):.2f} us, "
          f"batch of 1 {per_call(lambda: tree.any_hit(origins[:1], ends[:1])):.2f} us, "
          f"closest_hit batch of 1 {per_call(lambda: tree.closest_hit(origins[:1], directions[:1], 1.0)):.2f} us")

    if embreex is not None:
        from embreex import rtcore_scene
        from embreex.mesh_construction import TriangleMesh

        scene = rtcore_scene.EmbreeScene()
        TriangleMesh(scene, mesh.vertices[mesh.faces].astype(np.float32))
        dists = np.ones(n, dtype=np.float32)
        occluded = scene.run(origins, directions, dists=dists.copy(), query="OCCLUDED")
        agree = np.mean((occluded >= 0) == (tree.any_hit(origins, ends) >= 0))
        report.add("any hit (segments)", "embreex (Embree 4)", n,
                   median_time(lambda: scene.run(origins, directions, dists=dists.copy(), query="OCCLUDED"),
                               args.repeat), f"agrees on {agree:.4%}")
        # The whole record (t, u, v, normal, id), as boxtree's Hits holds it.
        first = scene.run(origins, directions, dists=dists.copy(), output=True)["primID"]
        agree = np.mean(first == tree.closest_hit(origins, directions, 1.0).triangle)
        report.add("closest hit (t in [0,1])", "embreex (Embree 4)", n,
                   median_time(lambda: scene.run(origins, directions, dists=dists.copy(), output=True),
                               args.repeat), f"same triangle on {agree:.4%}")
        one = dists[:1]
        print(f"  embreex per-call cost (batch of 1): "
              f"{per_call(lambda: scene.run(origins[:1], directions[:1], dists=one.copy(), query='OCCLUDED')):.2f} us")

    if trimesh is not None:
        from trimesh.ray.ray_triangle import RayMeshIntersector

        tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
        intersector = RayMeshIntersector(tm)
        k = args.numpy_subset
        o, d = origins[:k].astype(np.float64), directions[:k].astype(np.float64)

        def any_segment_hit():
            # trimesh's rays are unbounded: keep hits within the segment.
            _, ray_ids, locations = intersector.intersects_id(
                o, d, multiple_hits=True, return_locations=True)
            t = np.einsum("ij,ij->i", locations - o[ray_ids], d[ray_ids]) / np.einsum(
                "ij,ij->i", d[ray_ids], d[ray_ids])
            blocked = np.zeros(k, dtype=bool)
            blocked[ray_ids[t <= 1]] = True
            return blocked

        agree = np.mean(any_segment_hit() == (tree.any_hit(origins[:k], ends[:k]) >= 0))
        report.add("any hit (segments)", "trimesh ray_triangle", k,
                   median_time(any_segment_hit, 1), f"numpy path, {k:,}-segment subset; agrees on {agree:.2%}")
        report.add("closest hit (t in [0,1])", "trimesh ray_triangle", k,
                   median_time(lambda: intersector.intersects_id(o, d, multiple_hits=False), 1),
                   f"numpy path, {k:,}-ray subset, unbounded rays")


def overlap(report, args, rng, fcl):
    env_mesh = boxtree.Mesh.load(DATA / "env.obj")
    rob_mesh = boxtree.Mesh.load(DATA / "rob.obj")
    n = args.poses
    lo, hi = env_mesh.bounds
    poses = random_poses(rng, n, lo, hi)
    trees = {v: (boxtree.MeshTree(env_mesh, volume=v), boxtree.MeshTree(rob_mesh, volume=v))
             for v in ("obb", "aabb")}
    env, rob = trees["obb"]
    answers = boxtree.overlaps(env, None, rob, poses)
    print(f"\nFCL env ({len(env_mesh)} triangles) vs rob ({len(rob_mesh)}): {n:,} poses, "
          f"{answers.mean():.0%} in contact")
    for volume, (env_tree, rob_tree) in trees.items():
        report.add("overlap (poses)", f"boxtree {volume}", n,
                   median_time(lambda: boxtree.overlaps(env_tree, None, rob_tree, poses), args.repeat))
    one = poses[0]
    print(f"  per-call cost from Python: one pose {per_call(lambda: boxtree.overlaps(env, None, rob, one), 500):.2f} us")

    if fcl is not None:
        def model(mesh):
            m = fcl.BVHModel()
            m.beginModel(mesh.vertex_count, len(mesh))
            m.addSubModel(mesh.vertices.astype(np.float64), mesh.faces.astype(np.int32))
            m.endModel()
            return m

        env_object = fcl.CollisionObject(model(env_mesh), fcl.Transform())
        rob_model = model(rob_mesh)
        transforms = [fcl.Transform(p[:3, :3], p[:3, 3]) for p in poses]

        def collide_all():
            out = np.empty(n, dtype=bool)
            rob_object = fcl.CollisionObject(rob_model, fcl.Transform())
            request = fcl.CollisionRequest()
            for i, transform in enumerate(transforms):
                rob_object.setTransform(transform)
                out[i] = fcl.collide(env_object, rob_object, request, fcl.CollisionResult()) > 0
            return out

        agree = np.mean(collide_all() == answers)
        report.add("overlap (poses)", "python-fcl (OBBRSS)", n,
                   median_time(collide_all, args.repeat), f"agrees on {agree:.2%}")


def closest_points(report, args, rng, trimesh):
    mesh = boxtree.Mesh.load(DATA / "bunny.obj")
    tree = boxtree.MeshTree(mesh)
    n = args.points
    points = around(mesh.bounds, rng, n)
    print(f"\nbunny: {n:,} points")
    report.add("closest point", "boxtree aabb", n,
               median_time(lambda: tree.closest_points(points), args.repeat))
    p1 = points[0]
    print(f"  per-call cost from Python: one point {per_call(lambda: tree.closest_points(p1)):.2f} us")
    if trimesh is not None:
        tm = trimesh.Trimesh(mesh.vertices, mesh.faces, process=False)
        k = args.numpy_subset
        subset = points[:k].astype(np.float64)
        _, distance, _ = trimesh.proximity.closest_point(tm, subset)
        agree = np.max(np.abs(distance - tree.closest_points(points[:k]).distance))
        report.add("closest point", "trimesh proximity", k,
                   median_time(lambda: trimesh.proximity.closest_point(tm, subset), 1),
                   f"numpy path, {k:,}-point subset; max |distance diff| {agree:.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10x smaller batches")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--only", choices=["rays", "overlap", "points"], help="one workload")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    args.segments, args.poses, args.points = 1_000_000 // scale, 10_000 // scale, 100_000 // scale
    args.numpy_subset = 10_000 // scale
    rng = np.random.default_rng(2026)
    trimesh, embreex, fcl = optional("trimesh"), optional("embreex"), optional("fcl")
    threads = os.environ.get("RAYON_NUM_THREADS") or os.cpu_count()
    print(f"{os.cpu_count()} cores, boxtree batches on {threads} threads; numpy {np.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")
    report = Report()
    if args.only in (None, "rays"):
        rays(report, args, rng, trimesh, embreex)
    if args.only in (None, "overlap"):
        overlap(report, args, rng, fcl)
    if args.only in (None, "points"):
        closest_points(report, args, rng, trimesh)
    report.ratios()


if __name__ == "__main__":
    main()
