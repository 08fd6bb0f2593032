"""How batches run: without copying their input whole, and without the GIL."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from conftest import DATA

import boxtree

# Measures the peak memory a batch call adds to a fresh interpreter beyond
# its answer arrays, for one layout of its input (Linux's peak RSS, reset
# just before the call).
PEAK_SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import boxtree

    query, layout, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    tree = boxtree.MeshTree(boxtree.Mesh.load(sys.argv[4]))
    rng = np.random.default_rng(1)
    def rows():
        a = rng.uniform(-6, 10, size=(n, 3)).astype(np.float32)
        if layout == "float64":
            return a.astype(np.float64)
        if layout == "strided":
            return np.repeat(a, 2, axis=0)[::2]
        if layout == "fortran":
            return np.asfortranarray(a)
        return a
    a, b = rows(), rows()
    tree.closest_points(a[:1000]); tree.any_hit(a[:1000], b[:1000])  # warm up
    def status(field):
        with open("/proc/self/status") as f:
            line = next(l for l in f if l.startswith(field + ":"))
        return int(line.split()[1]) * 1024
    # Linux: writing 5 resets the peak (VmHWM) to the current size (VmRSS).
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    if query == "closest_points":
        out = tree.closest_points(a)
        answer = sum(getattr(out, f).nbytes for f in ("found", "point", "distance", "triangle", "barycentric"))
    else:
        answer = tree.any_hit(a, b).nbytes
    print(status("VmHWM") - before - answer)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux's /proc")
@pytest.mark.parametrize("layout", ["float32", "float64", "strided", "fortran"])
@pytest.mark.parametrize("query", ["closest_points", "any_hit"])
def test_a_batch_never_copies_its_input_whole(query, layout, tmp_path):
    n = 1_000_000
    # glibc would keep freed memory resident and hand it out again unseen:
    # fixed thresholds make every large block a fresh mapping, returned when freed.
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="0")
    # `python -c` puts its working directory first on sys.path: run it away
    # from python/, whose boxtree/ source folder lacks the compiled module.
    result = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, query, layout, str(n), str(DATA / "bunny.obj")],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    extra = int(result.stdout)
    # One float32 copy of one input would be 12 MB; staging blocks are ~2 MB.
    assert extra < 6_000_000, f"{query} on {layout} rows added {extra / 1e6:.1f} MB beyond its answers"


def test_batches_release_the_gil(bunny):
    tree = boxtree.MeshTree(bunny)
    rng = np.random.default_rng(2)
    points = rng.uniform(-6, 10, size=(400_000, 3)).astype(np.float32)
    done = threading.Event()
    ticks = 0

    def work():
        tree.closest_points(points)
        done.set()

    worker = threading.Thread(target=work)
    started = time.perf_counter()
    worker.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - started
    assert elapsed > 0.05, "the batch should take long enough to measure"
    # Holding the GIL for the whole call would leave this thread a tick or two.
    assert ticks > elapsed / 0.001 / 4


def test_moving_a_scene_during_its_query_is_refused_not_raced(bunny):
    scene = boxtree.Scene()
    scene.add(boxtree.MeshTree(bunny))
    points = np.random.default_rng(3).uniform(-6, 10, size=(2_000_000, 3)).astype(np.float32)
    worker = threading.Thread(target=scene.closest_points, args=(points,))
    worker.start()
    time.sleep(0.05)
    try:
        if not worker.is_alive():
            pytest.skip("the query ended before the move was tried")
        with pytest.raises(RuntimeError, match="borrow"):
            scene.set_pose(0, np.eye(4))
    finally:
        worker.join()
    scene.set_pose(0, np.eye(4))
