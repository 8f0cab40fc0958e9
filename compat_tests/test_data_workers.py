"""DataLoader worker processes, PyTorch against torchlike: the same batches for 0, 1 and 2
workers, iterable-style sharding with `get_worker_info`, worker_init_fn / persistent_workers /
prefetch_factor / timeout, and the failure reports (an exception in a worker, a worker killed,
a timeout); a dataset defined in a script's `__main__`; tensors through
`torch.multiprocessing` queues.

PyTorch's side forks its workers (its default on Linux; they never touch JAX); torchlike's
workers come from its forkserver. Kept small: every worker is a process."""
import os
import re
import subprocess
import sys
import textwrap

import pytest

import torchlike
from harness import check, same_script_output
from data_helpers import datasets as H

HERE = os.path.dirname(os.path.abspath(__file__))


def _name(torch):
    return "torchlike" if torch is torchlike else "torch"


def _ctx(torch):
    return None if torch is torchlike else "fork"


def _loader(torch, dataset, workers, **kw):
    if workers:
        kw.setdefault("multiprocessing_context", _ctx(torch))
    return torch.utils.data.DataLoader(dataset, num_workers=workers, **kw)


def test_same_batches_for_0_1_2_workers():
    def f(torch):
        lib = _name(torch)
        out = [list(_loader(torch, H.Mixed(lib, 10), w, batch_size=3)) for w in (0, 1, 2)]
        x = torch.arange(60, dtype=torch.float32).reshape(20, 3)
        tds = torch.utils.data.TensorDataset(x, torch.arange(20) * 2)
        persistent = _loader(torch, tds, 2, batch_size=6, persistent_workers=True,
                             prefetch_factor=1, timeout=30, pin_memory=False)
        out += [list(persistent), list(persistent), len(persistent)]
        rec = _loader(torch, H.Recording(lib, 5), 2, batch_size=2,
                      worker_init_fn=H.InitFn(lib))
        out.append(list(rec))
        idx = _loader(torch, H.Indexed(lib), 1, batch_size=1)
        out.append([(b, i.tolist()) for b, (_, _, i) in enumerate(idx)])
        return out
    check(f)


def test_iterable_dataset_sharded_by_worker_info():
    def f(torch):
        lib = _name(torch)
        return [list(_loader(torch, H.make_sharded(lib, 11), w, batch_size=2))
                for w in (0, 2)] + [list(_loader(torch, H.make_sharded(lib, 5), 2,
                                                 batch_size=None))]
    check(f)


def test_seed_index_example_with_shuffle_and_a_worker():
    """shared/seeds/002: a Dataset returning its index, shuffle=True, num_workers=1."""
    loader = torchlike.utils.data.DataLoader(H.Indexed("torchlike"), batch_size=1,
                                             shuffle=True, num_workers=1)
    seen = []
    for batch_idx, (data, target, idx) in enumerate(loader):
        line = 'Batch idx {}, dataset index {}'.format(batch_idx, idx)
        assert re.fullmatch(r"Batch idx \d, dataset index tensor\(\[\d\]\)", line)
        assert data.tolist() == [[float(idx.item())] * 2] and target.item() == idx.item() % 3
        seen.append(idx.item())
    assert sorted(seen) == list(range(6))


def _failure(torch, dataset, **kw):
    try:
        list(_loader(torch, dataset, 2, batch_size=2, **kw))
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def test_worker_exception_reraised_with_worker_id_and_traceback():
    def f(torch):
        kind, msg = _failure(torch, H.Failing(_name(torch)))
        head = msg.split("\n")[:2]
        return kind, head, msg.rstrip().split("\n")[-1]
    expected, _ = check(f)
    assert expected[1] == ["Caught ValueError in DataLoader worker process 1.",
                           "Original Traceback (most recent call last):"]


def test_dead_worker_is_reported_not_hung():
    def f(torch):
        kind, msg = _failure(torch, H.Dying(_name(torch)))
        return kind, re.sub(r"\(pid\(s\) [\d, ]+\)", "(pid(s) N)", msg)
    expected, _ = check(f)
    assert expected == ("RuntimeError", "DataLoader worker (pid(s) N) exited unexpectedly")


def test_timeout_expiry_is_reported():
    check(lambda torch: _failure(torch, H.Slow(_name(torch), 2.0), timeout=0.5))


def test_dataset_defined_in_main_script(tmp_path):
    """A Dataset class defined in a script's __main__ works with workers (the workers run the
    script as __mp_main__, as under spawn)."""
    script = tmp_path / "main_ds.py"
    script.write_text(textwrap.dedent("""
        import sys
        import importlib
        torch = importlib.import_module(sys.argv[1])
        from_lib = torch.utils.data

        class Squares(from_lib.Dataset):
            def __len__(self):
                return 7

            def __getitem__(self, i):
                return {"i": i, "sq": torch.tensor([i * i, -i])}

        if __name__ == "__main__":
            loader = from_lib.DataLoader(Squares(), batch_size=3, num_workers=int(sys.argv[2]))
            for b in loader:
                print(b)
    """))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(HERE), HERE]))
    run = lambda *a: subprocess.run([sys.executable, str(script), *a], capture_output=True,  # noqa: E731
                                    text=True, timeout=240, env=env)
    ours, theirs = run("torchlike", "2"), run("torch", "0")
    assert ours.returncode == 0, ours.stderr
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout and ours.stdout.count("{'i'") == 3


def test_multiprocessing_queue_carries_tensors_and_spawn_reports_errors():
    def f(torch):
        mp = torch.multiprocessing
        ctx = mp.get_context("forkserver")
        q, done = ctx.Queue(), ctx.Event()
        p = ctx.Process(target=H.send_tensor, args=(q, done, _name(torch)))
        p.start()
        got = q.get(timeout=120)
        done.set()
        p.join()
        try:
            mp.start_processes(H.raise_in_child, args=("boom",), nprocs=2,
                               start_method="forkserver")
            err = None
        except mp.ProcessRaisedException as e:
            err = (e.error_index, str(e).split("\n")[2], str(e).rstrip().split("\n")[-1])
        return got, p.exitcode, err, mp.get_sharing_strategy(), callable(mp.Pool)
    check(f)


_UNGUARDED = """
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset
print("top of script")
torch.manual_seed(0)


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return torch.tensor([float(i)]), i * i


X = torch.randn(30, 4)
dl = DataLoader(TensorDataset(X), batch_size=8, shuffle=True, num_workers=2)
for b, in dl:
    print(b.shape, b[0])
offset = 100          # defined after the first loop: sent with the function that reads it


def make_collate(k):
    def collate(batch):
        return [y + k + offset for _, y in batch]
    return collate


loader = DataLoader(Squares(), batch_size=4, num_workers=2,
                    collate_fn=lambda batch: [x for x, _ in batch])
loader2 = DataLoader(Squares(), batch_size=3, num_workers=2, collate_fn=make_collate(5),
                     worker_init_fn=lambda wid: torch.manual_seed(wid))
for epoch in range(2):
    for batch in loader:
        print(epoch, batch)
    print(list(loader2))
print("done")
"""


def test_unguarded_script_with_workers_and_lambdas(tmp_path):
    """A tutorial-style script with no `if __name__ == "__main__":` guard, lambdas and a
    closure as collate_fn / worker_init_fn: PyTorch's fork-started workers run it; under the
    drop-in runner it prints the same (each worker's re-run of the script is silent and stops
    where the script starts workers)."""
    out, _ = same_script_output(_UNGUARDED, tmp_path)
    assert out.count("top of script") == 1 and out.endswith("done\n")


def test_unnamed_functions_reach_workers():
    """Lambdas and nested functions (which pickle cannot name) as collate_fn reach the workers
    by value, closures included (a module in a closure goes by name)."""
    def f(torch):
        scale = 3

        def collate(batch):
            return [int(x) * scale for x in batch]
        a = list(_loader(torch, list(range(7)), 2, batch_size=3, collate_fn=collate))
        b = list(_loader(torch, list(range(5)), 2, batch_size=2,
                         collate_fn=lambda batch: torch.tensor(batch) + 1))
        return a, b
    check(f)
