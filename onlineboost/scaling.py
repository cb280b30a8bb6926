r"""Online standardisation that one record cannot poison.

River's `preprocessing.StandardScaler` keeps a running mean and variance (Welford): one value of
1e99 in a stream of $\mathcal N(0, 1)$ features sets the variance near $10^{198}/n$ for the rest
of the stream, and every later record is standardised to about 0. The rule here bounds what a
single value can do to the statistics, per feature:

* **Warm-up** (the feature's first `warmup` values $W$): the values are kept; the statistics
  are the mean and population variance of the values inside the wider of
  $\operatorname{med} \pm 1.4826 \min(k, 3) \operatorname{MAD}$ (a consistent estimate of
  $\pm 3\sigma$ for normal data) and [second smallest, second largest] (for sparse features
  whose MAD is 0): at most the smallest and the largest value are left out, and one extreme
  value among the first $W$ has no influence at all. Fewer than 3 values give no variance
  (outputs 0): of two values, neither can be told to be the outlier.
* **After the warm-up** each value $v$ is winsorised before the Welford update, to
  $\bar x \pm k s$ ($s$ the running standard deviation, `k` $= k$): the mean moves by at most
  $k s / n$ and the variance grows by at most the factor $1 + (k^2 - 1)/n$ per record. While
  the variance is still 0 (a feature constant so far, or sparse) the band is $\bar x \pm |d|$,
  $d$ the previous deviation from $\bar x$ seen since: the first deviating value is learned as
  $\bar x$, each later one no further out than its predecessor — two records, not one, set a
  constant feature's scale.
* **Output**: $z = (v - \bar x) / s$ clipped to $[-c, c]$ (`clip` $= c$, by default the band's
  $k = 5$: no record is shown to the model further out than the statistics let it count, so
  one extreme value acts on the model as a plausible 5-sd outlier), 0 where $s = 0$ or
  the feature is unseen; finite values beyond $\pm$`MAX_ABS` are first clipped to it, so no
  square or sum overflows, for any finite input up to the largest double.

A genuine change of scale is followed: after a level shift of $L \gg k s$ at record $n_0$
the band grows by the factor $(1 + (k^2 - 1)/n)^{1/2}$ per record, so $s$ grows like
$(n / n_0)^{(k^2 - 1)/2}$ ($k = 5$: $n^{12}$) and reaches $L$ after about
$n_0 (L^{2/(k^2 - 1)} - 1)$ records. Measured from a $\mathcal N(0, 1)$ stream shifted at
$n_0 = 1000$ (records until the new level is standardised to $|z| \le 2$): 18 records for
$L = 2$ (river: 18), 272 for $L = 10$ (235), 869 for $L = 10^3$ and 2,336 for $L = 10^6$
(river: 249).

On clean data the statistics are river's up to the warm-up and the rare winsorised values:
after 100 / 1,000 records the outputs differ from river's `StandardScaler` by at most
3% / 0.3% of $1 + |z|$ for normal features, 0 for uniform and binary ones, 16% / 0.7% for
Student-t(5) tails; river's outputs beyond $\pm c$ (skewed features such as log-normal ones)
are clipped (`tests/onlineboost/test_scaling.py`). After one injected value (any finite
double) the outputs of the later clean records stay in $[-c, c]$ and, from 50 records past
the warm-up and the injection on, within $0.3 (1 + |z|)$ of the clean run's (the
hypothesis test there; the bound shrinks like $1/n$ for light tails).

`learn` and `transform` are the numpy kernels (one value per column, arrays never modified);
`learn_transform` (numpy) and `learn_transform_floats` (plain floats, for short rows) are the
two in one call for statistics past the warm-up, the same operations entry by entry (so the
same numbers, bit for bit) with fewer calls; `RobustStandardScaler` is the river transformer
over dicts, and `onlineboost._contexts.ContextVectors` (BoBLO's contexts) uses the kernels
directly, so the rule lives here only.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from river import base

from ._checks import check_int, check_real, check_transformer

__all__ = ["CLIP", "K", "MAX_ABS", "WARMUP", "RobustStandardScaler", "ScaledPolicy", "Stats",
           "learn", "learn_transform", "learn_transform_floats", "transform"]

MAX_ABS = 1e100  # larger finite values are clipped to it: squares and their sums stay finite
K = 5.0  # winsorising band, in running standard deviations
K_WARM = 3.0  # the warm-up's band, in MADs scaled to sd (1.4826 MAD)
WARMUP = 10  # values per feature kept before the band applies
CLIP = 5.0  # bound on |output|: the band's edge K, so no record is shown further out than
# the statistics let it count (one extreme value acts as a plausible 5-sd outlier)


class Stats:
    """Running statistics of the columns: `count`, `mean`, `var`, `dev` (last deviation while the
    variance is 0), `buf` (the warm-up values, NaN where none), one row per column."""

    __slots__ = ("count", "mean", "var", "dev", "buf", "ready")

    def __init__(self, count, mean, var, dev, buf, ready=False):
        self.count, self.mean, self.var, self.dev, self.buf = count, mean, var, dev, buf
        self.ready = ready  # known: every column past the warm-up with a positive variance

    @classmethod
    def empty(cls, q: int = 0, warmup: int = WARMUP) -> Stats:
        z = np.zeros(q)
        return cls(z, z.copy(), z.copy(), z.copy(), np.full((q, warmup), np.nan))

    def __getstate__(self):
        return tuple(getattr(self, s) for s in self.__slots__)

    def __setstate__(self, state):
        for s, value in zip(self.__slots__, state):
            setattr(self, s, value)

    def __len__(self) -> int:
        return len(self.count)

    def grow(self, q: int) -> Stats:
        """The statistics over `q >= len(self)` columns (new ones empty); self if unchanged."""
        extra = q - len(self)
        if extra <= 0:
            return self
        pad = np.zeros(extra)
        return Stats(*(np.concatenate([a, pad]) for a in (self.count, self.mean, self.var,
                                                          self.dev)),
                     np.concatenate([self.buf, np.full((extra, self.buf.shape[1]), np.nan)]))

    def take(self, idx) -> Stats:
        """The statistics of columns `idx` (a copy)."""
        return Stats(self.count[idx], self.mean[idx], self.var[idx], self.dev[idx],
                     self.buf[idx], self.ready)

    def put(self, idx, part: Stats) -> Stats:
        """A copy with columns `idx` replaced by `part`."""
        warm = len(part) and part.count.min() <= self.buf.shape[1]  # its buffer may differ
        out = Stats(self.count.copy(), self.mean.copy(), self.var.copy(), self.dev.copy(),
                    self.buf.copy() if warm else self.buf)
        out.count[idx], out.mean[idx], out.var[idx], out.dev[idx] = (part.count, part.mean,
                                                                      part.var, part.dev)
        if warm:
            out.buf[idx] = part.buf
        out.ready = self.ready and part.ready
        return out


def _middle(s: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The median of each row's first `n` values of the row-sorted `s`."""
    rows = np.arange(len(n))
    return 0.5 * s[rows, (n - 1) // 2] + 0.5 * s[rows, n // 2]


def _warm_stats(buf: np.ndarray, n: np.ndarray, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean and population variance of each row's `n` values (NaN-padded) inside the wider of
    median +- min(k, K_WARM) 1.4826 MAD and [second smallest, second largest]."""
    ni = n.astype(np.intp)
    s = np.sort(buf, axis=1)  # NaN last
    med = _middle(s, ni)
    mad = _middle(np.sort(np.abs(buf - med[:, None]), axis=1), ni)
    rows = np.arange(len(n))
    h = min(k, K_WARM) * 1.4826 * mad
    lo = np.minimum(med - h, s[:, min(1, s.shape[1] - 1)])
    hi = np.maximum(med + h, s[rows, np.maximum(ni - 2, 0)])
    keep = (buf >= lo[:, None]) & (buf <= hi[:, None])  # (False for NaN)
    m = keep.sum(axis=1)
    m = np.maximum(m, 1)  # (n < 3 may keep nothing: its mean is the median, no variance)
    w = np.where(keep, buf, 0.0)
    mean = np.where(n < 3, med, w.sum(axis=1) / m)
    var = np.where(keep, (w - mean[:, None]) ** 2, 0.0).sum(axis=1) / m
    return mean, np.where(n < 3, 0.0, var)


def learn(st: Stats, v: np.ndarray, k: float = K, warmup: int = WARMUP) -> Stats:
    r"""The statistics after learning the values `v` (one per column of `st`; `st` unchanged).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.scaling import Stats, learn, transform
    >>> st = Stats.empty(1, warmup=5)
    >>> for value in (1.0, 1e99, 3.0, 2.0, 4.0):  # 1e99 is left out
    ...     st = learn(st, np.array([value]), warmup=5)
    >>> st.count, st.mean.round(3), st.var.round(3)
    (array([5.]), array([2.5]), array([1.25]))
    >>> st = learn(st, np.array([1e99]), warmup=5)  # learned as mean + 5 sd
    >>> st.mean.round(3), st.var.round(3)
    (array([3.432]), array([5.382]))
    >>> transform(st, np.array([1e99, 3.0]), clip=10.0).round(3)
    array([10.   , -0.186])
    """
    v = np.minimum(np.maximum(v, -MAX_ABS), MAX_ABS)  # (np.clip is slower on short vectors)
    count, mean, var, dev = st.count, st.mean, st.var, st.dev
    n = count + 1.0
    if st.ready or (len(v) and count.min() >= warmup and var.min() > 0.0):  # the usual round
        h = k * np.sqrt(var)
        c = np.minimum(np.maximum(v, mean - h), mean + h)
        d0 = c - mean
        new_mean = mean + d0 / n
        return Stats(n, new_mean, np.maximum(var + (d0 * (c - new_mean) - var) / n, 0.0), dev,
                     st.buf, True)
    warm = count < warmup
    if warm.any():
        buf = st.buf.copy()
        rows = np.flatnonzero(warm)
        buf[rows, count[rows].astype(np.intp)] = v[rows]
        wm, wv = _warm_stats(buf[rows], n[rows], k)
    else:
        buf = st.buf  # unchanged: shared, never written in place
    # after the warm-up: winsorise to mean +- k sd, or to mean +- |last deviation| while var = 0
    h = np.where(var > 0.0, k * np.sqrt(var), dev)
    c = np.minimum(np.maximum(v, mean - h), mean + h)
    d0 = c - mean
    new_mean = mean + d0 / n
    new_var = np.maximum(var + (d0 * (c - new_mean) - var) / n, 0.0)
    new_dev = np.where((var == 0.0) & (v != mean), np.abs(v - mean), dev)
    if warm.any():
        new_mean[rows], new_var[rows], new_dev[rows] = wm, wv, 0.0
    return Stats(n, new_mean, new_var, new_dev, buf)


def transform(st: Stats, v: np.ndarray, clip: float = CLIP) -> np.ndarray:
    """$(v - \\bar x)/s$ per column, clipped to `[-clip, clip]`; 0 where the variance is 0."""
    sd = np.sqrt(st.var)
    v = np.minimum(np.maximum(v, -MAX_ABS), MAX_ABS)
    if st.ready or (len(v) and sd.min() > 0.0):
        z = (v - st.mean) / sd
    else:
        z = np.zeros(len(v))
        np.divide(v - st.mean, sd, out=z, where=sd > 0.0)
    return np.minimum(np.maximum(z, -clip, out=z), clip, out=z)


def learn_transform(st: Stats, v: np.ndarray, k: float = K,
                    clip: float = CLIP) -> tuple[Stats, np.ndarray]:
    """`(learn(st, v, k), transform(that, v, clip))` in one call, for statistics whose columns
    are all past the warm-up (`st.count.min() >= warmup`) and values `v` of magnitude
    at most `MAX_ABS` (already validated): the same operations, entry by entry, without the
    checks and clamps that are no-ops there (fewer numpy calls on a short row).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.scaling import Stats, learn, learn_transform, transform
    >>> st = Stats.empty(3, warmup=5)
    >>> for t in range(8):  # (the third column is constant: variance 0)
    ...     st = learn(st, np.array([t % 3, 2.0 * t, 1.0]), warmup=5)
    >>> v = np.array([1.5, 30.0, 1.0])
    >>> new, z = learn_transform(st, v)
    >>> z.round(3)
    array([0.729, 2.436, 0.   ])
    >>> np.array_equal(z, transform(learn(st, v, warmup=5), v))
    True
    """
    count, mean, var = st.count, st.mean, st.var
    n = count + 1.0
    # (`np.minimum.reduce`: `.min()` without its Python wrapper)
    if st.ready or (len(v) and np.minimum.reduce(var) > 0.0):  # learn's usual round
        h = np.sqrt(var)
        h *= k
        dev, ready = st.dev, True
    else:  # some variance is 0: its band is the last deviation (learn's rule after warm-up)
        positive = var > 0.0
        h = np.sqrt(var)
        h *= k
        h = np.where(positive, h, st.dev)
        dev = np.where(~positive & (v != mean), np.abs(v - mean), st.dev)
        ready = False
    c = np.maximum(v, mean - h)
    np.minimum(c, mean + h, out=c)
    d0 = c - mean
    new_mean = d0 / n
    new_mean += mean
    c -= new_mean
    c *= d0
    c -= var
    c /= n
    c += var
    new_var = np.maximum(c, 0.0, out=c)
    sd = np.sqrt(new_var)
    # transform's division (ready: as numpy divides, even by 0)
    if ready or np.minimum.reduce(sd) > 0.0:
        z = v - new_mean
        z /= sd
    else:
        z = np.zeros(len(v))
        np.divide(v - new_mean, sd, out=z, where=sd > 0.0)
    np.maximum(z, -clip, out=z)
    return Stats(n, new_mean, new_var, dev, st.buf, ready), np.minimum(z, clip, out=z)


def learn_transform_floats(count: list, mean: list, var: list, dev: list, v: list,
                           ready: bool, k: float = K, clip: float = CLIP) -> tuple | None:
    """`learn_transform` on plain floats (lists, one entry per column; `ready` is `st.ready`):
    the same operations entry by entry, so the same numbers bit for bit, and cheaper than
    numpy's calls on a short row. Returns `(count, mean, var, dev, ready, z)` (new lists, but
    `dev` is the given list itself where no deviation can move), or `None` when
    that cannot hold: a value not finite or beyond `MAX_ABS` (the caller validates it), or
    statistics marked `ready` whose variance wore down to 0 (numpy divides by 0 there).

    Examples
    --------
    >>> from onlineboost.scaling import learn_transform_floats
    >>> count, mean, var, dev, ready, z = learn_transform_floats(
    ...     [20.0, 20.0], [1.0, 3.0], [4.0, 0.0], [0.0, 0.0], [30.0, 3.0], False)
    >>> mean, var, z  # 30 winsorised to 1 + 5 * 2 = 11; the constant column stays at 0
    ([1.4761904761904763, 3.0], [8.344671201814059, 0.0], [5.0, 0.0])
    """
    sqrt = math.sqrt
    if not ready:
        ready = all([s2 > 0.0 for s2 in var])  # learn's test (counts: past the warm-up)
    if ready:  # the usual round (every variance positive): the loop below with `ready` set
        out_n, out_m, out_v, out_z = [], [], [], []
        put_n, put_m, put_v, put_z = out_n.append, out_m.append, out_v.append, out_z.append
        lo_x, hi_x, lo_z = -MAX_ABS, MAX_ABS, -clip
        for x, c0, m, s2 in zip(v, count, mean, var):
            if not lo_x <= x <= hi_x:
                return None
            n = c0 + 1.0
            h = sqrt(s2) * k
            c = m - h
            if not x < c:
                c = x
            hi = m + h
            if c > hi:
                c = hi
            d0 = c - m
            m1 = d0 / n + m
            s1 = (d0 * (c - m1) - s2) / n + s2
            if not s1 > 0.0:  # (worn down to 0, or below: numpy would divide by 0)
                return None
            zz = (x - m1) / sqrt(s1)
            if zz < lo_z:
                zz = lo_z
            if zz > clip:
                zz = clip
            put_n(n)
            put_m(m1)
            put_v(s1)
            put_z(zz)
        return out_n, out_m, out_v, dev, True, out_z  # (no deviation moves once ready)
    # some variance is 0 (a constant or sparse column): its band is the last deviation
    out_n, out_m, out_v, out_d, out_z = [], [], [], [], []
    put_n, put_m, put_v, put_d, put_z = (out_n.append, out_m.append, out_v.append, out_d.append,
                                         out_z.append)
    lo_x, hi_x, lo_z = -MAX_ABS, MAX_ABS, -clip
    for x, c0, m, s2, dv in zip(v, count, mean, var, dev):
        if not lo_x <= x <= hi_x:
            return None
        n = c0 + 1.0
        h = sqrt(s2) * k if s2 > 0.0 else dv
        c = m - h
        if not x < c:  # np.maximum(x, m - h): x unless x < m - h
            c = x
        hi = m + h
        if c > hi:  # np.minimum(c, m + h)
            c = hi
        d0 = c - m
        m1 = d0 / n + m
        s1 = (d0 * (c - m1) - s2) / n + s2
        if s1 < 0.0:
            s1 = 0.0
        if s2 == 0.0 and x != m:
            dv = abs(x - m)
        if s1 > 0.0:
            zz = (x - m1) / sqrt(s1)
            if zz < lo_z:
                zz = lo_z
            if zz > clip:
                zz = clip
        else:
            zz = 0.0
        put_n(n)
        put_m(m1)
        put_v(s1)
        put_d(dv)
        put_z(zz)
    return out_n, out_m, out_v, out_d, False, out_z


def _checked(x, name: str) -> np.ndarray:
    """The values of dict `x` as floats, or a `ValueError` naming `name[key]`."""
    if not isinstance(x, dict):
        raise ValueError(f"{name} must be a dict of features, got {type(x).__name__}")
    out = np.empty(len(x))
    for i, (key, value) in enumerate(x.items()):
        ok = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
        try:
            ok = ok and math.isfinite(value)
        except OverflowError:  # an int beyond the float range
            ok = False
        if not ok:
            raise ValueError(f"{name}[{key!r}] must be a finite real number, got {value!r}")
        out[i] = value
    return out


class RobustStandardScaler(base.Transformer):
    r"""Standardises each feature online by a running mean and standard deviation that one
    record cannot poison (the rule of `onlineboost.scaling`).

    Parameters
    ----------
    k
        $k$: after the warm-up each value is winsorised to $\bar x \pm k s$ before it is learned.
    warmup
        $W \ge 4$: the first values of each feature; their statistics are winsorised at the
        second smallest and second largest value.
    clip
        $c$: outputs are clipped to $[-c, c]$.

    Examples
    --------
    >>> from onlineboost.scaling import RobustStandardScaler
    >>> scaler = RobustStandardScaler()
    >>> for t in range(200):
    ...     scaler.learn_one({"a": 1e99 if t == 50 else float(t % 7), "b": 2.0})
    >>> {k: round(z, 3) for k, z in scaler.transform_one({"a": 6.0, "b": 2.0}).items()}
    {'a': 1.404, 'b': 0.0}
    >>> scaler.transform_one({"a": 1e99, "c": 1.0})  # clipped; "c" unseen
    {'a': 5.0, 'c': 0.0}
    >>> scaler.learn_one({"a": float("nan")})
    Traceback (most recent call last):
    ...
    ValueError: x['a'] must be a finite real number, got nan
    """

    def __init__(self, k: float = K, warmup: int = WARMUP, clip: float = CLIP):
        check_real("k", k, 1.0)
        check_int("warmup", warmup, 4)
        check_real("clip", clip, 0.0, low_open=True)
        self.k = k
        self.warmup = warmup
        self.clip = clip
        self._columns: dict = {}
        self._stats = Stats.empty(0, warmup)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"k": 3.0, "warmup": 5, "clip": 5.0}

    def _index(self, x: dict, add: bool) -> tuple[dict, np.ndarray]:
        columns = self._columns
        new = [key for key in x if key not in columns]
        if new and add:
            columns = dict(columns)
            for key in new:
                columns[key] = len(columns)
        return columns, np.fromiter((columns.get(key, -1) for key in x), dtype=np.intp,
                                    count=len(x))

    def learn_one(self, x: dict) -> None:
        v = _checked(x, "x")
        columns, idx = self._index(x, add=True)
        st = self._stats.grow(len(columns))
        part = learn(st.take(idx), v, float(self.k), int(self.warmup))
        self._stats, self._columns = st.put(idx, part), columns

    def transform_one(self, x: dict) -> dict:
        v = _checked(x, "x")
        _, idx = self._index(x, add=False)
        known = idx >= 0
        z = np.zeros(len(v))
        if known.any():
            z[known] = transform(self._stats.take(idx[known]), v[known], float(self.clip))
        return dict(zip(x, z.tolist()))


class ScaledPolicy(base.Base):
    """A contextual bandit policy that sees its contexts through `scaler`.

    `pull(arm_ids, context)` and `update(arm_id, context, reward)` pass the policy the context
    transformed with the statistics learned before this round; `update` then teaches the scaler
    the raw context (after the policy's update succeeded, so a refused round leaves it as is).

    Examples
    --------
    >>> from river import bandit
    >>> from onlineboost.scaling import RobustStandardScaler, ScaledPolicy
    >>> policy = ScaledPolicy(bandit.LinUCBDisjoint(seed=0), RobustStandardScaler())
    >>> for t in range(100):
    ...     c = {"c": 1e99 if t == 20 else (t % 5) - 2.0}
    ...     arm = policy.pull(["a", "b"], c)
    ...     policy.update(arm, c, float((arm == "a") == (c["c"] > 0)))
    >>> policy.pull(["a", "b"], {"c": 2.0}), policy.pull(["a", "b"], {"c": -2.0})
    ('a', 'b')
    """

    def __init__(self, policy, scaler=None):
        if not (callable(getattr(policy, "pull", None)) and callable(getattr(policy, "update",
                                                                              None))):
            raise ValueError(f"policy must have pull and update, got {policy!r}")
        if scaler is not None:
            check_transformer("scaler", scaler)
        self.policy = policy
        self.scaler = scaler
        self._scaler = RobustStandardScaler() if scaler is None else scaler

    def pull(self, arm_ids, context=None):
        return self.policy.pull(arm_ids, self._scaler.transform_one(context or {}))

    def update(self, arm_id, context, *reward_args, **reward_kwargs):
        context = context or {}
        self.policy.update(arm_id, self._scaler.transform_one(context), *reward_args,
                           **reward_kwargs)
        self._scaler.learn_one(context)
