"""Brute-force numpy answers in float64, over every triangle, to check the
tree queries against; and small meshes and poses to ask them on."""

import numpy as np


def box_mesh(lo, hi):
    """An axis-aligned box as 8 vertices and 12 outward triangles."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    vertices = np.array(
        [[x, y, z] for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)], dtype=np.float64
    )
    faces = np.array(
        [
            [0, 2, 1], [1, 2, 3],  # z0
            [4, 5, 6], [5, 7, 6],  # z1
            [0, 1, 4], [1, 5, 4],  # y0
            [2, 6, 3], [3, 6, 7],  # y1
            [0, 4, 2], [2, 4, 6],  # x0
            [1, 3, 5], [3, 7, 5],  # x1
        ]
    )
    return vertices, faces


def transform(pose, points):
    """Points (N, 3) moved by a 4x4 pose, in float64."""
    points = np.asarray(points, dtype=np.float64)
    return points @ pose[:3, :3].T + pose[:3, 3]


def rotation(axis, angle):
    """A 4x4 pose turning by angle (radians) about axis (Rodrigues)."""
    axis = np.asarray(axis, dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    pose = np.eye(4)
    pose[:3, :3] = np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)
    return pose


def random_poses(rng, n, spread):
    """n random rigid 4x4 poses, translations uniform in [-spread, spread]."""
    poses = np.empty((n, 4, 4))
    for i in range(n):
        poses[i] = rotation(rng.normal(size=3), rng.uniform(0, 2 * np.pi))
        poses[i, :3, 3] = rng.uniform(-spread, spread, size=3)
    return poses


def ray_triangle(origins, directions, vertices, faces):
    """Moller-Trumbore for every ray and triangle: (t, barycentric) arrays of
    shape (N, F) and (N, F, 3); barycentric = weights of the three vertices."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    e1, e2 = b - a, c - a
    o = origins[:, None, :]
    d = directions[:, None, :]
    p = np.cross(d, e2)
    det = np.einsum("nfk,fk->nf", p, e1)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / det
        s = o - a
        u = np.einsum("nfk,nfk->nf", s, p) * inv
        q = np.cross(s, e1)
        v = np.einsum("nfk,nfk->nf", d * np.ones_like(q), q) * inv
        t = np.einsum("fk,nfk->nf", e2, q) * inv
    bary = np.stack([1 - u - v, u, v], axis=-1)
    return t, bary


def closest_ray_hits(origins, directions, vertices, faces, t_max, tolerance):
    """The nearest hit of each ray within [0, t_max]: (t, triangle, robust),
    t inf and triangle -1 for none. robust is False where a triangle edge,
    a ray end or a second triangle lies within tolerance of deciding
    differently (rounding may then fairly go either way)."""
    t, bary = ray_triangle(origins, directions, vertices, faces)
    low = bary.min(axis=-1)
    finite = np.isfinite(t)
    inside = finite & (low >= 0) & (t >= 0) & (t <= t_max)
    near = finite & (low >= -tolerance) & (t >= -tolerance) & (t <= t_max + tolerance)
    unsure = near & ~(finite & (low >= tolerance) & (t >= tolerance) & (t <= t_max - tolerance))
    t_in = np.where(inside, t, np.inf)
    best = np.argmin(t_in, axis=1)
    rows = np.arange(len(origins))
    best_t = t_in[rows, best]
    triangle = np.where(np.isfinite(best_t), best, -1)
    # Robust: no unsure triangle could become (or stop being) the nearest.
    t_near = np.where(near, t, np.inf)
    second = np.sort(t_near, axis=1)[:, 1] if t.shape[1] > 1 else np.full(len(t), np.inf)
    unsure_ahead = np.any(unsure & (t <= best_t[:, None] + tolerance), axis=1)
    with np.errstate(invalid="ignore"):
        separated = ~np.isfinite(best_t) | (second - best_t > tolerance)
    robust = ~unsure_ahead & separated
    return best_t, triangle, robust


def segment_blocked(origins, ends, vertices, faces, tolerance):
    """Whether each segment touches a triangle: (blocked, robust)."""
    directions = ends - origins
    t, bary = ray_triangle(origins, directions, vertices, faces)
    low = bary.min(axis=-1)
    finite = np.isfinite(t)
    strict = finite & (low >= tolerance) & (t >= tolerance) & (t <= 1 - tolerance)
    loose = finite & (low >= -tolerance) & (t >= -tolerance) & (t <= 1 + tolerance)
    blocked = strict.any(axis=1)
    return blocked, blocked == loose.any(axis=1)


def point_triangle_distances(points, vertices, faces):
    """Distance from every point to every triangle, (N, F), in float64."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    p = points[:, None, :]
    n = np.cross(b - a, c - a)
    n_unit = n / np.linalg.norm(n, axis=1, keepdims=True)
    height = np.einsum("nfk,fk->nf", p - a, n_unit)
    projected = p - height[..., None] * n_unit
    # Inside when the projection is on the inner side of all three edges.
    inside = np.ones(height.shape, dtype=bool)
    for u, v in ((a, b), (b, c), (c, a)):
        inside &= np.einsum("nfk,fk->nf", np.cross(v - u, projected - u), n) >= 0
    edges = np.full(height.shape, np.inf)
    for u, v in ((a, b), (b, c), (c, a)):
        e = v - u
        s = np.clip(np.einsum("nfk,fk->nf", p - u, e) / np.einsum("fk,fk->f", e, e), 0, 1)
        edges = np.minimum(edges, np.linalg.norm(p - (u + s[..., None] * e), axis=-1))
    return np.where(inside, np.abs(height), edges)


def triangles_touch(tri_a, tri_b, tolerance):
    """Separating-axis test of triangle pairs (K, 3, 3) each, in float64:
    (touch, robust). The 17 axes (2 normals, 9 edge crosses, 6 in-plane edge
    normals) decide coplanar and non-coplanar pairs alike; robust is False
    when the best separation is within tolerance of zero."""
    ea = np.roll(tri_a, -1, axis=1) - tri_a
    eb = np.roll(tri_b, -1, axis=1) - tri_b
    na = np.cross(ea[:, 0], ea[:, 1])
    nb = np.cross(eb[:, 0], eb[:, 1])
    axes = [na, nb]
    axes += [np.cross(ea[:, i], eb[:, j]) for i in range(3) for j in range(3)]
    axes += [np.cross(na, ea[:, i]) for i in range(3)]
    axes += [np.cross(nb, eb[:, i]) for i in range(3)]
    separation = np.full(len(tri_a), -np.inf)
    for axis in axes:
        length = np.linalg.norm(axis, axis=1)
        usable = length > 1e-12
        unit = axis / np.where(usable, length, 1)[:, None]
        pa = np.einsum("kvj,kj->kv", tri_a, unit)
        pb = np.einsum("kvj,kj->kv", tri_b, unit)
        gap = np.maximum(pb.min(1) - pa.max(1), pa.min(1) - pb.max(1))
        separation = np.where(usable, np.maximum(separation, gap), separation)
    return separation <= 0, np.abs(separation) > tolerance


def touching_pairs(vertices_a, faces_a, pose_a, vertices_b, faces_b, pose_b, tolerance):
    """Every touching (triangle of A, triangle of B) pair, brute force:
    (pairs (K, 2) sorted, robust: no pair within tolerance of touching)."""
    world_a = transform(pose_a, vertices_a)[faces_a]
    world_b = transform(pose_b, vertices_b)[faces_b]
    ia, ib = np.meshgrid(np.arange(len(faces_a)), np.arange(len(faces_b)), indexing="ij")
    ia, ib = ia.ravel(), ib.ravel()
    touch, robust = triangles_touch(world_a[ia], world_b[ib], tolerance)
    return np.stack([ia[touch], ib[touch]], axis=1), bool(robust.all())
