"""Mirrors `torch.hub`: the cache directory (`get_dir`/`set_dir`, `$TORCH_HOME`), downloads
(`download_url_to_file`, `load_state_dict_from_url`, any URL `urllib` opens) and entry points of a
`hubconf.py` (`load`/`list`/`help`, from a local directory or a GitHub repository's archive)."""
import errno
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from urllib.error import HTTPError, URLError  # noqa: F401 - torch.hub exposes them
from urllib.parse import urlparse
from urllib.request import Request, urlopen

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
DEFAULT_CACHE_DIR = "~/.cache"
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
READ_DATA_CHUNK = 128 * 1024
_TRUSTED_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_hub_dir = None


def _get_torch_home():
    """`$TORCH_HOME`, else `$XDG_CACHE_HOME/torch` (`~/.cache/torch`)."""
    return os.path.expanduser(os.getenv(
        ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir():
    """Mirrors `torch.hub.get_dir`."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Mirrors `torch.hub.set_dir`."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


class _Faketqdm:
    """What `torch.hub.tqdm` is without tqdm installed: a progress bar printed to stderr."""

    def __init__(self, total=None, disable=False, unit=None, *args, **kwargs):
        self.total, self.disable, self.unit, self.n = total, disable, unit, 0

    def update(self, n):
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def set_description(self, *args, **kwargs):
        pass

    def write(self, s):
        sys.stderr.write(f"{s}\n")

    def close(self):
        self.disable = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.disable:
            sys.stderr.write("\n")


try:
    from tqdm import tqdm
except ImportError:
    tqdm = _Faketqdm


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Mirrors `torch.hub.download_url_to_file`: written to a temporary file beside `dst` and
    moved into place once complete (and, with `hash_prefix`, once its SHA-256 matches)."""
    req = Request(url, headers={"User-Agent": "torch.hub"})
    u = urlopen(req)
    meta = u.info()
    length = meta.get_all("Content-Length") if hasattr(meta, "get_all") else None
    size = int(length[0]) if length else None
    dst = os.path.expanduser(dst)
    tmp = None
    for _ in range(tempfile.TMP_MAX):
        name = dst + "." + uuid.uuid4().hex + ".partial"
        try:
            tmp = open(name, "w+b")
            break
        except FileExistsError:
            continue
    if tmp is None:
        raise FileExistsError(errno.EEXIST, "No usable temporary file name found")
    try:
        sha = hashlib.sha256() if hash_prefix is not None else None
        with tqdm(total=size, disable=not progress, unit="B", unit_scale=True,
                  unit_divisor=1024) as bar:
            while True:
                buf = u.read(READ_DATA_CHUNK)
                if not buf:
                    break
                tmp.write(buf)
                if sha is not None:
                    sha.update(buf)
                bar.update(len(buf))
        tmp.close()
        if sha is not None:
            digest = sha.hexdigest()
            if digest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                                   f'"{digest}")')
        shutil.move(tmp.name, dst)
    finally:
        tmp.close()
        if os.path.exists(tmp.name):
            os.remove(tmp.name)


def _is_legacy_zip(path):
    """A zip archive holding a single file (how checkpoints were shipped before PyTorch 1.6;
    a `torch.save` archive holds several)."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as z:
        names = z.infolist()
    return len(names) == 1 and not names[0].is_dir()


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """Mirrors `torch.hub.load_state_dict_from_url`: downloads into `get_dir()/checkpoints` (or
    `model_dir`) once, then loads with `torch.load`."""
    from .serialization import load
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        hash_prefix = None
        if check_hash:
            m = HASH_REGEX.search(filename)
            hash_prefix = m.group(1) if m else None
        download_url_to_file(url, cached, hash_prefix, progress=progress)
    if _is_legacy_zip(cached):
        warnings.warn("Falling back to the old format < 1.6. This support will be deprecated in "
                      "favor of default zipfile format introduced in 1.6. Please redo "
                      "torch.save() to save it in the new zipfile format.", FutureWarning,
                      stacklevel=2)
        with zipfile.ZipFile(cached) as z:
            inner = z.infolist()[0].filename
            z.extractall(model_dir)
        cached = os.path.join(model_dir, inner)
    return load(cached, map_location=map_location, weights_only=weights_only)


# ---- hubconf entry points ----------------------------------------------------------------------

def _import_hubconf(repo_dir):
    """`repo_dir/hubconf.py` as a module, its `dependencies` checked."""
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    sys.path.insert(0, repo_dir)
    try:
        spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    deps = getattr(module, VAR_DEPENDENCY, None)
    if deps:
        missing = [d for d in deps if importlib.util.find_spec(d) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(hubconf, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(hubconf, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _parse_repo(github):
    if ":" in github:
        owner_name, ref = github.split(":")
    else:
        owner_name, ref = github, None
    owner, name = owner_name.split("/")
    return owner, name, ref


def _trusted(owner, name, repo_dir, trust_repo, hub_dir):
    """PyTorch's trust check. A repository is trusted when its owner is one PyTorch trusts, it
    is in `<hub_dir>/trusted_list`, or its checkout is already in the cache. `trust_repo=False`
    always asks, `'check'` asks for an untrusted one; a repository not yet trusted is added to
    the list unless the answer is no."""
    os.makedirs(hub_dir, exist_ok=True)
    path = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(path):
        open(path, "a").close()
    with open(path) as f:
        known = {line.strip() for line in f}
    entry = f"{owner}_{name}"
    trusted = entry in known or owner in _TRUSTED_OWNERS or os.path.exists(repo_dir)
    if trust_repo is False or (trust_repo == "check" and not trusted):
        answer = input(f"The repository {entry} does not belong to the list of trusted "
                       "repositories and as such cannot be downloaded. Do you trust this "
                       "repository and wish to add it to the trusted list of repositories "
                       "(y/N)?")
        if answer.lower() in ("y", "yes"):
            if trusted:
                print("The repository is already trusted.")
        elif answer.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")
        else:
            raise ValueError(f"Unrecognized response {answer}.")
    if not trusted:
        with open(path, "a") as f:
            f.write(entry + "\n")


def _github_dir(github, force_reload, trust_repo, calling_fn, verbose):
    """The cached checkout of `owner/name[:ref]` under `get_dir()`, downloading its archive from
    GitHub when it is not there (or `force_reload`)."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo(github)
    refs = [ref] if ref else ["main", "master"]
    dirs = [os.path.join(hub_dir, "_".join([owner, name, r.replace("/", "_")])) for r in refs]
    cached = next((d for d in dirs if os.path.exists(d)), None)
    _trusted(owner, name, cached or dirs[0], trust_repo, hub_dir)
    if cached is not None and not force_reload:
        if verbose:
            sys.stderr.write(f"Using cache found in {cached}\n")
        return cached
    last = None
    for r in refs:
        repo_dir = os.path.join(hub_dir, "_".join([owner, name, r.replace("/", "_")]))
        archive = os.path.join(hub_dir, r.replace("/", "_") + ".zip")
        url = f"https://github.com/{owner}/{name}/zipball/{r}"
        try:
            sys.stderr.write(f'Downloading: "{url}" to {archive}\n')
            download_url_to_file(url, archive, progress=False)
        except HTTPError as e:
            last = e
            continue
        with zipfile.ZipFile(archive) as z:
            top = z.infolist()[0].filename.split("/")[0]
            z.extractall(hub_dir)
        os.remove(archive)
        shutil.rmtree(repo_dir, ignore_errors=True)
        shutil.move(os.path.join(hub_dir, top), repo_dir)
        return repo_dir
    raise last


def _repo_dir(repo_or_dir, source, force_reload, trust_repo, calling_fn, verbose):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        return _github_dir(repo_or_dir, force_reload, trust_repo, calling_fn, verbose)
    return repo_or_dir


def list(github, force_reload=False, skip_validation=False, trust_repo="check",  # noqa: A001
         verbose=True):
    """Mirrors `torch.hub.list`: the public callables of the repository's `hubconf.py`."""
    hubconf = _import_hubconf(_github_dir(github, force_reload, trust_repo, "list", verbose))
    return [f for f in dir(hubconf) if callable(getattr(hubconf, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False,  # noqa: A001
         trust_repo="check"):
    """Mirrors `torch.hub.help`: the docstring of an entry point."""
    hubconf = _import_hubconf(_github_dir(github, force_reload, trust_repo, "help", True))
    return _entry(hubconf, model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Mirrors `torch.hub.load`: calls entry point `model` of the `hubconf.py` of a local
    directory (`source='local'`) or a GitHub repository."""
    repo_dir = _repo_dir(repo_or_dir, source, force_reload, trust_repo, "load", verbose)
    return _entry(_import_hubconf(repo_dir), model)(*args, **kwargs)


def _load_local(hubconf_dir, model, *args, **kwargs):
    """Mirrors `torch.hub._load_local`."""
    return _entry(_import_hubconf(hubconf_dir), model)(*args, **kwargs)
