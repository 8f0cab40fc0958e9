"""NumPy reference kernels of torchvision's native operators, written from their definitions
(torchvision's CPU kernels): greedy NMS, RoIAlign (average of bilinear samples per bin), RoIPool
(max per integer bin, first maximum). `register(torch)` defines them in real PyTorch's
`torch.ops.torchvision`, so real torchvision (whose C++ part cannot load beside the CPU torch
wheel) runs its own Python code over them: the oracle of `test_torchvision.py`."""
import math

import numpy as np


def nms(boxes, scores, thr):
    order = sorted(range(len(scores)), key=lambda i: -scores[i])   # stable by score
    x1, y1, x2, y2 = boxes.T
    area = (x2 - x1) * (y2 - y1)
    suppressed = np.zeros(len(scores), bool)
    keep = []
    for a, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        for j in order[a + 1:]:
            if suppressed[j]:
                continue
            w = max(0.0, min(x2[i], x2[j]) - max(x1[i], x1[j]))
            h = max(0.0, min(y2[i], y2[j]) - max(y1[i], y1[j]))
            inter = w * h
            if inter / (area[i] + area[j] - inter) > thr:
                suppressed[j] = True
    return np.array(keep, np.int64)


def _bilinear_taps(y, x, H, W):
    """[(row, col, weight)] of one sample (zero taps outside the image)."""
    if y < -1.0 or y > H or x < -1.0 or x > W:
        return []
    y, x = max(y, 0.0), max(x, 0.0)
    yl, xl = int(y), int(x)
    if yl >= H - 1:
        yl = yh = H - 1
        y = float(yl)
    else:
        yh = yl + 1
    if xl >= W - 1:
        xl = xh = W - 1
        x = float(xl)
    else:
        xh = xl + 1
    ly, lx = y - yl, x - xl
    hy, hx = 1 - ly, 1 - lx
    return [(yl, xl, hy * hx), (yl, xh, hy * lx), (yh, xl, ly * hx), (yh, xh, ly * lx)]


def roi_align_weights(rois, scale, ph, pw, sr, aligned, H, W):
    """{(roi, py, px): [(batch, row, col, weight)]}: each output bin as a weighted sum."""
    out = {}
    for k, r in enumerate(rois):
        b = int(r[0])
        off = 0.5 if aligned else 0.0
        sx, sy = r[1] * scale - off, r[2] * scale - off
        ex, ey = r[3] * scale - off, r[4] * scale - off
        rw, rh = ex - sx, ey - sy
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / ph, rw / pw
        gh = sr if sr > 0 else math.ceil(rh / ph)
        gw = sr if sr > 0 else math.ceil(rw / pw)
        count = max(gh * gw, 1)
        for py in range(ph):
            for px in range(pw):
                taps = []
                for iy in range(gh):
                    y = sy + py * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        x = sx + px * bw + (ix + 0.5) * bw / gw
                        taps += [(b, rr, cc, w / count) for rr, cc, w in
                                 _bilinear_taps(y, x, H, W)]
                out[(k, py, px)] = taps
    return out


def roi_align(x, rois, scale, ph, pw, sr, aligned):
    n, c, H, W = x.shape
    out = np.zeros((len(rois), c, ph, pw), x.dtype)
    for (k, py, px), taps in roi_align_weights(rois, scale, ph, pw, sr, aligned, H, W).items():
        acc = np.zeros(c, np.float64)
        for b, rr, cc, w in taps:
            acc += w * x[b, :, rr, cc]
        out[k, :, py, px] = acc
    return out


def roi_align_backward(g, rois, scale, ph, pw, n, c, H, W, sr, aligned):
    out = np.zeros((n, c, H, W), g.dtype)
    for (k, py, px), taps in roi_align_weights(rois, scale, ph, pw, sr, aligned, H, W).items():
        for b, rr, cc, w in taps:
            out[b, :, rr, cc] += w * g[k, :, py, px]
    return out


def roi_pool(x, rois, scale, ph, pw):
    n, c, H, W = x.shape
    out = np.zeros((len(rois), c, ph, pw), x.dtype)
    arg = np.full((len(rois), c, ph, pw), -1, np.int32)

    def rnd(v):
        return int(math.floor(abs(v) + 0.5)) * (1 if v >= 0 else -1)
    for k, r in enumerate(rois):
        b = int(r[0])
        sw, sh = rnd(r[1] * scale), rnd(r[2] * scale)
        ew, eh = rnd(r[3] * scale), rnd(r[4] * scale)
        rw, rh = max(ew - sw + 1, 1), max(eh - sh + 1, 1)
        bh, bw = rh / ph, rw / pw
        for py in range(ph):
            for px in range(pw):
                hs = min(max(int(math.floor(py * bh)) + sh, 0), H)
                he = min(max(int(math.ceil((py + 1) * bh)) + sh, 0), H)
                ws = min(max(int(math.floor(px * bw)) + sw, 0), W)
                we = min(max(int(math.ceil((px + 1) * bw)) + sw, 0), W)
                if he <= hs or we <= ws:
                    continue
                for ch in range(c):
                    win = x[b, ch, hs:he, ws:we]
                    i = int(np.argmax(win))
                    out[k, ch, py, px] = win.flat[i]
                    arg[k, ch, py, px] = (hs + i // (we - ws)) * W + ws + i % (we - ws)
    return out, arg


def roi_pool_backward(g, rois, arg, n, c, H, W):
    out = np.zeros((n, c, H, W), g.dtype).reshape(n, c, -1)
    for k, r in enumerate(rois):
        b = int(r[0])
        for ch in range(c):
            for i, a in zip(g[k, ch].ravel(), arg[k, ch].ravel()):
                if a >= 0:
                    out[b, ch, a] += i
    return out.reshape(n, c, H, W)


def register(torch, schemas):
    """Defines torchvision's operators in real PyTorch with the kernels above."""
    lib = torch.library.Library("torchvision", "DEF")
    for s in schemas:
        lib.define(s)

    def t(a):
        return torch.from_numpy(np.ascontiguousarray(a))

    kernels = {
        "nms": lambda d, s, thr: t(nms(d.numpy(), s.numpy(), thr)),
        "roi_align": lambda x, r, s, ph, pw, sr, al: t(
            roi_align(x.detach().numpy(), r.numpy(), s, ph, pw, sr, al)),
        "_roi_align_backward": lambda g, r, s, ph, pw, n, c, H, W, sr, al: t(
            roi_align_backward(g.numpy(), r.numpy(), s, ph, pw, n, c, H, W, sr, al)),
        "roi_pool": lambda x, r, s, ph, pw: tuple(
            t(a) for a in roi_pool(x.detach().numpy(), r.numpy(), s, ph, pw)),
        "_roi_pool_backward": lambda g, r, a, s, ph, pw, n, c, H, W: t(
            roi_pool_backward(g.numpy(), r.numpy(), a.numpy(), n, c, H, W)),
    }
    for name, fn in kernels.items():
        lib.impl(name, fn, "CPU")
    lib.impl("_cuda_version", lambda: -1, "CompositeExplicitAutograd")
    return lib
