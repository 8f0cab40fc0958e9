"""A child process started with the spawn method imports torch too: under the runner it must be
torchlike there as well."""
import multiprocessing as mp

import torch


def child(q):
    import torch as t
    q.put((t.__name__, float(t.ones(3).sum())))


if __name__ == "__main__":
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=child, args=(q,))
    p.start()
    print(q.get(timeout=120))
    p.join()
    print("parent", torch.__name__)
