"""A notebook's kernel mapped over chunks on Dask workers (LocalCluster, two worker processes):
the workers unpickle the kernel and see its signature and resources without a GPU; a launch there
runs where a GPU is and raises NoDeviceError where none is. Skips when Dask is not importable."""
import os

import numpy as np
import pytest

import xcuda
from conftest import SAXPY, requires_kernels

# Debian's tornado 6.2 under distributed 2022.12
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")

distributed = pytest.importorskip("distributed", reason="Dask (distributed) is not importable in this Python: "
                                                        "apt install python3-distributed or pip install distributed")

TEMPLATE = r'''
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
'''


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def chunk_task():
    """What a task does with a chunk: launch the kernel on it (numpy in, numpy out). Made inside a
    function so that cloudpickle sends it by value, as it sends a notebook's functions."""
    def saxpy_on_chunk(kernel, a, x, y):
        y = y.copy()
        kernel[(x.size + 255) // 256, 256](a, x, y, x.size)
        return y

    return saxpy_on_chunk


def test_every_worker_process_unpickles_the_kernel_with_its_signature_and_resources(client, saxpy):
    def describe(kernel):
        return os.getpid(), kernel.signature, kernel.resources

    seen = client.run(describe, saxpy)
    assert len(seen) == 2
    pids = {pid for pid, _, _ in seen.values()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert all(sig == saxpy.signature and res == saxpy.resources for _, sig, res in seen.values())


def test_template_instantiations_map_over_tasks(client):
    axpy = xcuda.compile(TEMPLATE, instantiate=["axpy<float>", "axpy<double>"]).kernels["axpy"]
    futures = client.map(lambda dtype: axpy[dtype].signature, ["float", "double"])
    assert client.gather(futures) == [axpy["float"].signature, axpy["double"].signature]


def test_a_module_compiled_here_pickles_to_workers_with_its_cubin(client):
    m = xcuda.compile(SAXPY + "// dask module\n")
    cubins = client.gather(client.map(lambda i, module: module.cubin, range(2), module=m))
    assert cubins[0] == cubins[1]
    if not xcuda.device_available():
        assert cubins[0] == m.cubin


def test_launching_on_chunks_matches_numpy_or_says_there_is_no_gpu(client, saxpy):
    rng = np.random.default_rng(3)
    x = rng.random(4096, dtype=np.float32)
    y = rng.random(4096, dtype=np.float32)
    futures = client.map(chunk_task(), [saxpy] * 2, [2.0] * 2, np.array_split(x, 2), np.array_split(y, 2))
    if xcuda.device_available():
        assert np.allclose(np.concatenate(client.gather(futures)), 2.0 * x + y)
    else:
        with pytest.raises(xcuda.NoDeviceError):
            client.gather(futures)


@requires_kernels
def test_two_workers_each_run_saxpy_on_half_of_2_26_elements_and_match_numpy(client, saxpy):
    n = 1 << 26
    rng = np.random.default_rng(4)
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    halves = []
    for worker, xs, ys in zip(client.scheduler_info()["workers"], np.array_split(x, 2), np.array_split(y, 2)):
        xs, ys = client.scatter([xs, ys], workers=[worker])
        halves.append(client.submit(chunk_task(), saxpy, 2.0, xs, ys, workers=[worker]))
    assert np.allclose(np.concatenate(client.gather(halves)), 2.0 * x + y)
