"""Float32 `log` and `sincos` as PyTorch's x86 CPU build computes them inside `normal_`.

PyTorch's `normal_fill` (float32, contiguous, >= 16 elements, AVX2/AVX512 builds) runs Box-Muller
through Cephes' single-precision polynomials (its `avx_mathfun.h`), not libm, and the shipped
wheel is compiled with multiply-add contraction: each multiply feeding an add is one fused
operation, rounded once. These NumPy versions evaluate the same polynomials in the same order
with the same roundings, so `torch.randn` is reproduced bit for bit (a float64 product of two
float32 numbers is exact, so `_fma` rounds once, like the hardware instruction, save for a
double rounding too rare to matter).
"""
import numpy as np

_F = np.float32
_MIN_NORM = _F(1.17549435e-38)
_SQRT_HALF = _F(0.707106781186547524)
_LOG_POLY = tuple(_F(c) for c in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
    -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1))
_LOG_Q1, _LOG_Q2 = _F(-2.12194440e-4), _F(0.693359375)
_FOUR_OVER_PI = _F(1.27323954473516)
_PI4_PARTS = (_F(-0.78515625), _F(-2.4187564849853515625e-4), _F(-3.77489497744594108e-8))
_COS_POLY = (_F(2.443315711809948e-5), _F(-1.388731625493765e-3), _F(4.166664568298827e-2))
_SIN_POLY = (_F(-1.9515295891e-4), _F(8.3321608736e-3), _F(-1.6666654611e-1))


def _fma(a, b, c):
    """a * b + c rounded once to float32."""
    r = np.multiply(a, b, dtype=np.float64)
    r += c
    return r.astype(_F)


def log(x):
    """Natural log of positive float32 `x` (Cephes `logf` as `log256_ps`)."""
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F) + _F(1)
    m = ((bits & ~0x7F800000) | _F(0.5).view(np.int32)).view(_F)  # mantissa in [0.5, 1)
    small = m < _SQRT_HALF
    m = (m - _F(1)) + np.where(small, m, _F(0))
    e = e - np.where(small, _F(1), _F(0))
    z = m * m
    y = np.full_like(m, _LOG_POLY[0])
    for c in _LOG_POLY[1:]:
        y = _fma(y, m, c)
    y = _fma(y * m, z, e * _LOG_Q1)
    y = _fma(z, _F(-0.5), y)
    return _fma(e, _LOG_Q2, m + y)


def sincos(x):
    """(sin x, cos x) of float32 `x` (Cephes `sinf`/`cosf` as `sincos256_ps`)."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _FOUR_OVER_PI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    sign_cos = (~(j - 2) & 4) != 0
    use_sin_poly = (j & 2) == 0
    for part in _PI4_PARTS:  # x - y * pi/4 in extended precision
        x = _fma(y, part, x)
    z = x * x
    c = _fma(_COS_POLY[0], z, _COS_POLY[1])
    c = _fma(c, z, _COS_POLY[2])
    c = _fma(c * z, z, -(z * _F(0.5))) + _F(1)
    s = _fma(_SIN_POLY[0], z, _SIN_POLY[1])
    s = _fma(s, z, _SIN_POLY[2])
    s = _fma(s * z, x, x)
    sin = np.where(use_sin_poly, s, c)
    cos = np.where(use_sin_poly, c, s)
    return np.where(sign_sin, -sin, sin), np.where(sign_cos, -cos, cos)
