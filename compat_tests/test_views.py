"""Views: storage sharing, strides, offsets, contiguity, data_ptr relations and errors, compared
with real PyTorch. Each case builds a base, takes a view, writes through it, and reports the
view's layout and the base's values afterwards."""
import pytest

from harness import check


def layout_of(t, base):
    return (tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous(),
            t.data_ptr() - base.data_ptr(), t.untyped_storage().nbytes(), t.numel(), t.dim())


VIEW_CASES = {
    "view_-1": lambda x: x.view(-1),
    "view_tuple": lambda x: x.view((4, 6)),
    "view_size": lambda x: x.view(x.size()),
    "view_as": lambda x: x.view_as(x.new_zeros(6, 4)),
    "view_noncontig_ok": lambda x: x.t().view(6, 2, 2),
    "reshape_view": lambda x: x.reshape(3, -1),
    "reshape_as": lambda x: x.reshape_as(x.new_zeros(2, 12)),
    "transpose": lambda x: x.transpose(0, 1),
    "transpose_neg": lambda x: x.transpose(-1, -2),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "swapdims": lambda x: x.swapdims(1, 0),
    "t": lambda x: x.t(),
    "T": lambda x: x.T,
    "mT": lambda x: x.view(2, 3, 4).mT,
    "permute3": lambda x: x.view(2, 3, 4).permute(2, 0, 1),
    "permute_tuple": lambda x: x.view(2, 3, 4).permute((1, 2, 0)),
    "movedim": lambda x: x.view(2, 3, 4).movedim(0, -1),
    "movedim_multi": lambda x: x.view(2, 3, 4).movedim((0, 1), (2, 0)),
    "moveaxis": lambda x: x.view(2, 3, 4).moveaxis(2, 0),
    "squeeze_all": lambda x: x.view(1, 4, 1, 6).squeeze(),
    "squeeze_dim": lambda x: x.view(1, 4, 1, 6).squeeze(2),
    "squeeze_noop": lambda x: x.view(1, 4, 1, 6).squeeze(1),
    "squeeze_tuple": lambda x: x.view(1, 4, 1, 6).squeeze((0, 2)),
    "unsqueeze0": lambda x: x.unsqueeze(0),
    "unsqueeze_last": lambda x: x.unsqueeze(-1),
    "unsqueeze_mid": lambda x: x.unsqueeze(1),
    "expand": lambda x: x[0:1].expand(3, 6) if False else x.narrow(0, 0, 1).expand(3, 6),
    "expand_new_dims": lambda x: x.narrow(0, 0, 1).expand(2, 5, 6),
    "expand_minus1": lambda x: x.narrow(0, 0, 1).expand(-1, 6),
    "expand_as": lambda x: x.narrow(0, 0, 1).expand_as(x.new_zeros(4, 6)),
    "broadcast_to": lambda x: x.narrow(1, 0, 1).broadcast_to((4, 3)),
    "narrow": lambda x: x.narrow(1, 2, 3),
    "narrow_neg": lambda x: x.narrow(-1, -3, 2),
    "select": lambda x: x.select(1, 3),
    "select_neg": lambda x: x.select(0, -1),
    "flatten": lambda x: x.view(2, 2, 6).flatten(),
    "flatten_range": lambda x: x.view(2, 2, 6).flatten(1, 2),
    "unflatten": lambda x: x.unflatten(1, (2, 3)),
    "unflatten_infer": lambda x: x.unflatten(0, (2, -1)),
    "diagonal": lambda x: x.diagonal(),
    "diagonal_off": lambda x: x.diagonal(1),
    "diagonal_neg": lambda x: x.diagonal(-2),
    "diagonal_dims": lambda x: x.view(2, 3, 4).diagonal(0, 2, 1),
    "as_strided": lambda x: x.as_strided((3, 3), (1, 2), 1),
    "unfold": lambda x: x.unfold(1, 2, 2),
    "unfold_overlap": lambda x: x.unfold(0, 2, 1),
    "detach": lambda x: x.detach(),
    "alias_contiguous": lambda x: x.contiguous(),
    "ravel": lambda x: x.ravel(),
    "squeeze_then_t": lambda x: x.view(4, 1, 6).squeeze(1).t(),
}


@pytest.mark.parametrize("name", list(VIEW_CASES))
def test_view_layout_and_write_through(name):
    make = VIEW_CASES[name]

    def f(torch):
        base = torch.arange(24.).view(4, 6)
        v = make(base)
        lay = layout_of(v, base)
        before = v.clone()
        if v.numel() and not (0 in v.stride() and v.numel() > 1 and name.startswith("expand")):
            if name.startswith(("expand", "broadcast", "unfold_overlap", "as_strided")):
                base.add_(100)  # writes to the base are seen through the view
            else:
                v.mul_(-1)     # writes through the view are seen by the base
        return lay, before, v, base, v._version == base._version
    check(f)


SPLIT_CASES = {
    "unbind": lambda x: x.unbind(1),
    "split_int": lambda x: x.split(4, 1),
    "split_sizes": lambda x: x.split([1, 2, 3], 1),
    "split_with_sizes": lambda x: x.split_with_sizes([3, 1], 0),
    "chunk": lambda x: x.chunk(4, 1),
    "chunk_uneven": lambda x: x.chunk(4, 0) + x.chunk(5, 1),
    "tensor_split_n": lambda x: x.tensor_split(4, 1),
    "tensor_split_idx": lambda x: x.tensor_split([1, 4], 1),
    "hsplit": lambda x: x.hsplit(3),
    "vsplit": lambda x: x.vsplit([1, 3]),
}


@pytest.mark.parametrize("name", list(SPLIT_CASES))
def test_splits_are_views(name):
    make = SPLIT_CASES[name]

    def f(torch):
        base = torch.arange(24.).view(4, 6)
        parts = make(base)
        lays = [layout_of(p, base) for p in parts]
        for p in parts:
            if p.numel():
                p.add_(1000)
        return type(parts).__name__, lays, base
    check(f)


INPLACE_VIEW_CASES = {
    "transpose_": lambda x: x.transpose_(0, 1),
    "t_": lambda x: x.t_(),
    "squeeze_": lambda x: x.unsqueeze(0).squeeze_(),
    "unsqueeze_": lambda x: x.unsqueeze_(1),
    "as_strided_": lambda x: x.as_strided_((2, 2), (1, 6)),
    "swapdims_": lambda x: x.swapdims_(0, 1),
}


@pytest.mark.parametrize("name", list(INPLACE_VIEW_CASES))
def test_inplace_view_ops_change_own_layout(name):
    make = INPLACE_VIEW_CASES[name]

    def f(torch):
        base = torch.arange(24.).view(4, 6)
        v = base.view(4, 6)
        r = make(v)
        return r is v, layout_of(v, base), v
    check(f)


ERROR_CASES = {
    "view_incompatible": lambda t: t.ones(4, 4).t().view(16),
    "view_bad_numel": lambda t: t.ones(3).view(4, 4),
    "view_two_infer": lambda t: t.ones(4).view(-1, -1),
    "view_bad_infer": lambda t: t.ones(5).view(-1, 2),
    "reshape_bad": lambda t: t.ones(5).reshape(2, 2),
    "transpose_oob": lambda t: t.ones(2, 3).transpose(0, 2),
    "t_3d": lambda t: t.ones(2, 3, 4).t(),
    "permute_wrong_len": lambda t: t.ones(2, 3).permute(0),
    "permute_dup": lambda t: t.ones(2, 3).permute(0, 0),
    "squeeze_oob": lambda t: t.ones(2, 3).squeeze(3),
    "unsqueeze_oob": lambda t: t.ones(2, 3).unsqueeze(4),
    "expand_bad": lambda t: t.ones(2, 3).expand(4, 3),
    "expand_fewer": lambda t: t.ones(2, 3).expand(3),
    "narrow_oob": lambda t: t.ones(2, 3).narrow(1, 2, 2),
    "select_oob": lambda t: t.ones(2, 3).select(1, 3),
    "select_0d": lambda t: t.tensor(1.).select(0, 0),
    "diagonal_same": lambda t: t.ones(2, 3).diagonal(0, 1, 1),
    "unfold_big": lambda t: t.ones(2, 3).unfold(1, 4, 1),
    "chunk_zero": lambda t: t.ones(4).chunk(0),
    "split_sizes_bad": lambda t: t.ones(4).split([1, 2]),
    "unflatten_bad": lambda t: t.ones(2, 6).unflatten(1, (4, 2)),
    "flatten_order": lambda t: t.ones(2, 3, 4).flatten(2, 1),
    "expanded_write": lambda t: t.ones(3).expand(2, 3).add_(1),
    "as_strided_oob": lambda t: t.ones(4).as_strided((3, 3), (1, 1), 3),
    "size_dim_oob": lambda t: t.ones(2, 3).size(2),
    "stride_dim_neg": lambda t: t.ones(2, 3).stride(-1),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_view_errors(name):
    check(ERROR_CASES[name])


def test_reshape_copies_when_it_must():
    def f(torch):
        x = torch.arange(6.).view(2, 3)
        y = x.t().reshape(6)           # cannot be a view: a copy
        z = x.reshape(3, 2)            # a view
        y.add_(100)
        z.mul_(2)
        return x, y, z.data_ptr() == x.data_ptr(), y.data_ptr() == x.data_ptr()
    check(f)


def test_contiguous_is_self_or_copy():
    def f(torch):
        x = torch.arange(6.).view(2, 3)
        c = x.contiguous()
        tc = x.t().contiguous()
        tc.add_(1)
        return c is x, tc.is_contiguous(), tc.stride(), x, tc.data_ptr() == x.data_ptr()
    check(f)


def test_storage_and_sizes():
    def f(torch):
        x = torch.zeros(3, 4, dtype=torch.float64)
        v = x[1] if False else x.select(0, 1)
        return (x.element_size(), x.nbytes, x.itemsize, v.untyped_storage().nbytes(),
                v.untyped_storage().data_ptr() == x.data_ptr(), v.storage_offset(),
                x.shape.numel(), x.size(), x.size(-1), x.stride(0), x.ndim, x.ndimension(),
                x.nelement())
    check(f)


def test_version_counter_shared_by_views():
    def f(torch):
        x = torch.zeros(3, 4)
        v = x.select(0, 1)
        w = x.t()
        v0 = (x._version, v._version, w._version)
        v.add_(1)
        w.mul_(2)
        x.zero_()
        d = x.detach()
        d.add_(1)
        return v0, x._version, v._version, w._version, d._version, x
    check(f)


def test_detach_shares_storage_and_data_has_new_version():
    def f(torch):
        x = torch.ones(3)
        d = x.detach()
        d.mul_(5)
        data = x.data
        data.add_(1)
        return x, d.data_ptr() == x.data_ptr(), data._version, x._version
    check(f)


def test_view_of_view_chain_writes_reach_base():
    def f(torch):
        base = torch.zeros(4, 6)
        v = base.t().narrow(0, 1, 4).select(1, 2).unsqueeze(0)
        v.fill_(7)
        w = base.view(2, 12).narrow(1, 3, 6).view(2, 2, 3).transpose(1, 2)
        w.add_(1)
        return base, layout_of(v, base), layout_of(w, base)
    check(f)


def test_seed_shapes():
    def f(torch):
        x = torch.zeros(16, 32, 3)
        z = torch.zeros(2, 1, 2, 1, 2)
        q = torch.zeros(4, 4)
        r = torch.zeros(2, 3, 4)
        return (x.transpose(0, 2).shape, x.permute(2, 1, 0).shape, x.permute(1, 2, 0).shape,
                z.squeeze().shape, torch.squeeze(z).shape, q.view(16).shape,
                q.view(-1, 8).shape, q.view((-1, 8)).shape, r.reshape(3, -1).shape,
                r.reshape((3, -1)).shape, torch.zeros(1, 2, 3, 4).transpose(1, 2).shape,
                torch.tensor([1, 2, 3, 4]).unsqueeze(0), torch.tensor([1, 2, 3, 4]).unsqueeze(1))
    check(f)
