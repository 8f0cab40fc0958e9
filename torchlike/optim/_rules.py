"""Pure per-parameter update rules, composed from optax so the result is PyTorch's.

Each rule is `rule(p, g, state, hp, flags) -> (new_p, new_state)` on JAX arrays; `state` uses
PyTorch's keys (`exp_avg`, `momentum_buffer`, `step`, ...), `hp` holds Python-float
hyper-parameters traced as weakly-typed scalars (so `1 - beta2` is formed in float64 and applied
to float32 arrays, as PyTorch does), `flags` is the static option tuple.

optax's own transforms are used where their formula is PyTorch's: `add_decayed_weights`
(coupled weight decay), `trace` (SGD/RMSprop momentum), `scale_by_adam`, `scale_by_adamax`,
`scale_by_rms`/`scale_by_stddev` (eps outside the root), `scale_by_adadelta`, `scale` +
`apply_updates` (the lr step), `optax.tree.update_moment*`/`bias_correction`. PyTorch-only
pieces (dampening, AMSGrad's max of the raw second moment, decoupled decay applied before the
step, NAdam's momentum schedule, RAdam's rectification and eps placement, Adagrad's lr_decay,
ASGD, Rprop's sign rules) are composed around them here.
"""
import jax.numpy as jnp
import optax

_EMPTY = optax.EmptyState()
_F64 = jnp.float64


def run(tx, g, s, p, **fields):
    """Apply optax transform `tx` to one parameter, its state read from / written to PyTorch's
    keys: `fields` maps a PyTorch key to the optax state field (`step` <-> integer `count`)."""
    template = tx.init(p)
    st = template._replace(**{f: s[k].astype(getattr(template, f).dtype)
                              for k, f in fields.items() if s.get(k) is not None})
    u, new = tx.update(g, st, p)
    return u, {k: getattr(new, f) for k, f in fields.items()}


def descend(p, u, lr):
    """`p - lr * u` via optax (`scale(-lr)` then `apply_updates`)."""
    return optax.apply_updates(p, optax.scale(-lr).update(u, _EMPTY)[0])


def decay_coupled(g, p, wd):
    """L2 penalty folded into the gradient: `g + wd * p` (`optax.add_decayed_weights`)."""
    return optax.add_decayed_weights(wd).update(g, _EMPTY, p)[0]


def decay_decoupled(p, lr, wd):
    """AdamW-style decay applied to the parameter before the step: `p * (1 - lr * wd)`."""
    return p * (1 - lr * wd)


def prologue(p, g, hp, maximize, wd, decoupled=False):
    """maximize / weight-decay handling shared by most rules: returns (p, g)."""
    if maximize:
        g = -g
    if wd:
        if decoupled:
            p = decay_decoupled(p, hp["lr"], hp["weight_decay"])
        else:
            g = decay_coupled(g, p, hp["weight_decay"])
    return p, g


def _f64(x):
    return x.astype(_F64)


def _as(x, like):
    return x.astype(like.dtype)


# ---- SGD ----------------------------------------------------------------------------------------

def sgd(p, g, s, hp, flags):
    maximize, wd, momentum, nesterov = flags
    p, g = prologue(p, g, hp, maximize, wd)
    new = {}
    if momentum:
        first = s.get("momentum_buffer") is None
        g_in = g if first else g * (1 - hp["dampening"])
        g, new = run(optax.trace(hp["momentum"], nesterov), g_in, s, p,
                     momentum_buffer="trace")
    return descend(p, g, hp["lr"]), new


# ---- Adam family --------------------------------------------------------------------------------

def adam(p, g, s, hp, flags):
    maximize, wd, decoupled, amsgrad = flags
    p, g = prologue(p, g, hp, maximize, wd, decoupled)
    b1, b2 = hp["betas"]
    u, new = run(optax.scale_by_adam(b1, b2, hp["eps"]), g, s, p,
                 step="count", exp_avg="mu", exp_avg_sq="nu")
    new["step"] = s["step"] + 1
    if amsgrad:   # PyTorch keeps the max of the *raw* second moment, then bias-corrects it
        vmax = jnp.maximum(s["max_exp_avg_sq"], new["exp_avg_sq"])
        count = new["step"].astype(jnp.int32)
        m_hat = optax.tree.bias_correction(new["exp_avg"], b1, count)
        v_hat = optax.tree.bias_correction(vmax, b2, count)
        u = m_hat / (jnp.sqrt(v_hat) + hp["eps"])
        new["max_exp_avg_sq"] = vmax
    return descend(p, u, hp["lr"]), new


def adamax(p, g, s, hp, flags):
    maximize, wd = flags
    p, g = prologue(p, g, hp, maximize, wd)
    b1, b2 = hp["betas"]
    u, new = run(optax.scale_by_adamax(b1, b2, hp["eps"]), g, s, p,
                 step="count", exp_avg="mu", exp_inf="nu")
    new["step"] = s["step"] + 1
    return descend(p, u, hp["lr"]), new


def _moments(g, s, b1, b2):
    m = optax.tree.update_moment(g, s["exp_avg"], b1, 1)
    v = optax.tree.update_moment_per_elem_norm(g, s["exp_avg_sq"], b2, 2)
    return m, v


def nadam(p, g, s, hp, flags):
    maximize, wd, decoupled = flags
    p, g = prologue(p, g, hp, maximize, wd, decoupled)
    b1, b2 = hp["betas"]
    lr, md = hp["lr"], hp["momentum_decay"]
    step = s["step"] + 1
    t = _f64(step)
    bc2 = 1 - b2 ** t
    mu = b1 * (1.0 - 0.5 * 0.96 ** (t * md))
    mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * md))
    mu_product = s["mu_product"] * _as(mu, s["mu_product"])
    m, v = _moments(g, s, b1, b2)
    denom = jnp.sqrt(v / _as(bc2, v)) + hp["eps"]
    mp = _f64(mu_product)
    c1 = _as(-lr * (1.0 - mu) / (1.0 - mp), p)
    c2 = _as((-lr * mu_next) / (1.0 - mp * mu_next), p)
    p = p + c1 * (g / denom)
    p = p + c2 * (m / denom)
    return p, {"step": step, "mu_product": mu_product, "exp_avg": m, "exp_avg_sq": v}


def radam(p, g, s, hp, flags):
    maximize, wd, decoupled = flags
    p, g = prologue(p, g, hp, maximize, wd, decoupled)
    b1, b2 = hp["betas"]
    lr = hp["lr"]
    step = s["step"] + 1
    t = _f64(step)
    m, v = _moments(g, s, b1, b2)
    bc1 = 1 - b1 ** t
    bc2 = 1 - b2 ** t
    m_hat = m / _as(bc1, m)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * t * (b2 ** t) / bc2
    rect = jnp.sqrt(jnp.abs((rho_t - 4) * (rho_t - 2) * rho_inf
                            / ((rho_inf - 4) * (rho_inf - 2) * rho_t)))
    adaptive = _as(jnp.sqrt(bc2), v) / (jnp.sqrt(v) + hp["eps"])
    rectified = m_hat * lr * adaptive * _as(rect, m)
    u = jnp.where(rho_t > 5.0, rectified, m_hat * lr)
    return p - u, {"step": step, "exp_avg": m, "exp_avg_sq": v}


# ---- RMSprop / Adagrad / Adadelta -------------------------------------------------------------

def rmsprop(p, g, s, hp, flags):
    maximize, wd, momentum, centered = flags
    p, g = prologue(p, g, hp, maximize, wd)
    if centered:
        u, new = run(optax.scale_by_stddev(hp["alpha"], hp["eps"], eps_in_sqrt=False), g, s, p,
                     square_avg="nu", grad_avg="mu")
    else:
        u, new = run(optax.scale_by_rms(hp["alpha"], hp["eps"], eps_in_sqrt=False), g, s, p,
                     square_avg="nu")
    if momentum:
        u, buf = run(optax.trace(hp["momentum"]), u, s, p, momentum_buffer="trace")
        new.update(buf)
    new["step"] = s["step"] + 1
    return descend(p, u, hp["lr"]), new


def adagrad(p, g, s, hp, flags):
    maximize, wd = flags
    p, g = prologue(p, g, hp, maximize, wd)
    step = s["step"] + 1
    clr = hp["lr"] / (1 + (_f64(step) - 1) * hp["lr_decay"])
    total = s["sum"] + g * g
    u = g / (jnp.sqrt(total) + hp["eps"])
    return descend(p, u, _as(clr, p)), {"step": step, "sum": total}


def adadelta(p, g, s, hp, flags):
    maximize, wd = flags
    p, g = prologue(p, g, hp, maximize, wd)
    u, new = run(optax.scale_by_adadelta(hp["rho"], hp["eps"]), g, s, p,
                 square_avg="e_g", acc_delta="e_x")
    new["step"] = s["step"] + 1
    return descend(p, u, hp["lr"]), new


# ---- ASGD / Rprop ------------------------------------------------------------------------------

def asgd(p, g, s, hp, flags):
    maximize, wd = flags
    p, g = prologue(p, g, hp, maximize, wd)
    lr, lambd, alpha, t0 = hp["lr"], hp["lambd"], hp["alpha"], hp["t0"]
    step = s["step"] + 1
    eta = _f64(s["eta"])
    p = p * _as(1 - lambd * eta, p)
    p = p + _as(-eta, p) * g
    mu = s["mu"]
    ax = jnp.where(mu != 1, s["ax"] + (p - s["ax"]) * _as(mu, p), p)
    t = _f64(step)
    new_eta = lr / ((1 + lambd * lr * t) ** alpha)
    new_mu = 1 / jnp.maximum(1.0, t - t0)
    return p, {"step": step, "eta": new_eta, "mu": new_mu, "ax": ax}


def rprop(p, g, s, hp, flags):
    (maximize,) = flags
    if maximize:
        g = -g
    etaminus, etaplus = hp["etas"]
    lo, hi = hp["step_sizes"]
    sign = jnp.sign(g * s["prev"])
    factor = jnp.where(sign > 0, etaplus, jnp.where(sign < 0, etaminus, 1.0)).astype(p.dtype)
    step_size = jnp.clip(s["step_size"] * factor, lo, hi)
    g = jnp.where(sign < 0, jnp.zeros_like(g), g)
    p = p - jnp.sign(g) * step_size
    return p, {"step": s["step"] + 1, "prev": g, "step_size": step_size}
