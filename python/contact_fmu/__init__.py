"""contact-fmu: contact-dynamics and terramechanics models (DLR SCM, BBCC, TerRA, PCM,
Bekker, Leite) packaged as FMI 2.0 / 3.0 Co-Simulation FMUs, from Python.

Every function calls the Rust packager in this process (no subprocess) and releases
the GIL while it works, so threads package in parallel::

    import contact_fmu
    fmu = contact_fmu.package("examples/terra_single_wheel.json", "target/fmu")
    fmu = contact_fmu.package(scenario_dict, "target/fmu", patch={"start_values": {...}})

A scenario is a path to its JSON file or a dict of that JSON (the format:
``contact_fmu.schema()``, docs/scenario-format.md). A dict's relative file references
(meshes, soil maps) resolve against ``base_dir`` (default: the current folder).
Problems in a scenario raise :class:`ScenarioError` with every field path and message.

The runtime libraries the FMUs carry are installed with the package (``runtimes()``
lists them); the ``contact-fmu`` console script is the same command line as the Rust
executable.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._errors import FieldError, PackagingError, ScenarioError, _raise

__all__ = [
    "__version__",
    "package",
    "check",
    "model_description",
    "schema",
    "ssp",
    "fit",
    "runtimes",
    "asset",
    "cli",
    "Checked",
    "FieldError",
    "ScenarioError",
    "PackagingError",
]

__version__: str = _native.version()

#: A scenario (or fit description, or patch): a path to its JSON file, or its JSON as a dict.
Json = Union[str, "os.PathLike[str]", Mapping[str, Any]]
#: One patch or several, applied in order (RFC 7386 JSON merge patches).
Patches = Union[None, Json, Sequence[Json]]

_RUNTIMES = Path(__file__).resolve().parent / "runtimes"
_native.set_runtimes(str(_RUNTIMES) if _RUNTIMES.is_dir() else None)


def runtimes() -> Dict[str, Path]:
    """The runtime libraries installed with this package, by platform folder
    (``linux64``, ``win64``, ``aarch64-linux``, ``darwin64``): what ``package`` puts
    into each FMU unless ``platforms`` narrows it."""
    found = {}
    if _RUNTIMES.is_dir():
        for d in sorted(_RUNTIMES.iterdir()):
            libs = [f for f in d.iterdir() if f.suffix in (".so", ".dll", ".dylib")] if d.is_dir() else []
            if len(libs) == 1:
                found[d.name] = libs[0]
    return found


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def _source(scenario: Json, base_dir: Union[None, str, "os.PathLike[str]"], what: str) -> Tuple[str, str, str]:
    """(JSON text, name in messages, folder its relative paths resolve against)."""
    if _is_path(scenario):
        path = Path(scenario)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        folder = path.parent if str(path.parent) else Path(".")
        return text, os.fspath(scenario), os.fspath(folder)
    if isinstance(scenario, Mapping):
        try:
            text = json.dumps(scenario, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"{what} (dict): not JSON: {e}", what + " (dict)", [FieldError("", f"not JSON: {e}")]) from None
        return text, f"{what} (dict)", os.fspath(base_dir if base_dir is not None else ".")
    raise TypeError(f"{what}: a path (str or os.PathLike) or a dict, got {type(scenario).__name__}")


def _patches(patch: Patches) -> List[Tuple[str, str]]:
    if patch is None:
        return []
    if _is_path(patch) or isinstance(patch, Mapping):
        items = [patch]
    elif isinstance(patch, (list, tuple)):
        items = list(patch)
    else:
        raise TypeError(f"patch: a path, a dict or a list of them, got {type(patch).__name__}")
    out = []
    for i, p in enumerate(items):
        text, label, _ = _source(p, None, "patch" if len(items) == 1 else f"patch[{i}]")
        out.append((label, text))
    return out


def _platforms(platforms: Union[None, str, Iterable[str]]) -> List[str]:
    if platforms is None:
        return []
    if isinstance(platforms, str):
        return [p for p in platforms.split(",") if p.strip()]
    return list(platforms)


def _opt(p: Union[None, str, "os.PathLike[str]"]) -> Optional[str]:
    return None if p is None else os.fspath(p)


def package(
    scenario: Json,
    out_dir: Union[str, "os.PathLike[str]"] = "target/fmu",
    patch: Patches = None,
    *,
    fmi: int = 2,
    layout: Optional[str] = None,
    platforms: Union[None, str, Iterable[str]] = None,
    base_dir: Union[None, str, "os.PathLike[str]"] = None,
    runtime: Union[None, str, "os.PathLike[str]"] = None,
    runtimes_dir: Union[None, str, "os.PathLike[str]"] = None,
) -> Path:
    """Packages ``scenario`` into ``out_dir/<model_identifier>.fmu`` and returns its path.

    - ``patch``: a JSON merge patch (dict or file), or a list of them applied in order,
      e.g. ``{"start_values": {"soil.c": 200.0}}`` or the ``patch.json`` of :func:`fit`.
    - ``fmi``: 2 (FMI 2.0 Co-Simulation) or 3 (FMI 3.0); ``layout`` with FMI 3.0:
      ``"arrays"`` (default), ``"bodies"`` or ``"scalars"`` (docs/fmi3.md).
    - ``platforms``: the binaries the FMU carries, e.g. ``["linux64", "win64"]``
      (default: every installed runtime).
    - ``base_dir``: where a dict scenario's relative files are (default: the current
      folder; for a file, its own folder).
    - ``runtime`` / ``runtimes_dir``: other runtime libraries than the installed ones
      (as the command line's ``--runtime`` / ``--runtimes``).

    Raises :class:`ScenarioError` for a scenario with problems (every field path and
    message), :class:`PackagingError` when packaging fails otherwise,
    ``FileNotFoundError`` for a missing file.
    """
    text, file, folder = _source(scenario, base_dir, "scenario")
    try:
        return Path(_native.package((text, file, folder, _patches(patch)), os.fspath(out_dir), str(fmi), layout,
                                    _opt(runtime), _opt(runtimes_dir), _platforms(platforms)))
    except _native.NativeError as e:
        _raise(e)


class Checked(dict):
    """What :func:`check` returns: the canonical scenario (a dict: the JSON with every
    default written out, what the FMU carries), with ``model_identifier`` and ``guid``."""

    model_identifier: str
    guid: str


def check(scenario: Json, patch: Patches = None, *, base_dir: Union[None, str, "os.PathLike[str]"] = None) -> Checked:
    """Checks ``scenario`` as :func:`package` does (format, values, side files, start
    values, assets) without writing anything. Returns the canonical scenario
    (:class:`Checked`); raises :class:`ScenarioError` listing every problem."""
    text, file, folder = _source(scenario, base_dir, "scenario")
    try:
        ident, guid, canonical = _native.check((text, file, folder, _patches(patch)))
    except _native.NativeError as e:
        _raise(e)
    c = Checked(json.loads(canonical))
    c.model_identifier, c.guid = ident, guid
    return c


def model_description(
    scenario: Json,
    patch: Patches = None,
    *,
    fmi: int = 2,
    layout: Optional[str] = None,
    base_dir: Union[None, str, "os.PathLike[str]"] = None,
) -> str:
    """The ``modelDescription.xml`` of ``scenario`` (FMI ``fmi``, ``layout`` as for
    :func:`package`), as text."""
    text, file, folder = _source(scenario, base_dir, "scenario")
    try:
        return _native.model_description((text, file, folder, _patches(patch)), str(fmi), layout)
    except _native.NativeError as e:
        _raise(e)


def schema() -> Dict[str, Any]:
    """The JSON Schema of the scenario format (draft 2020-12), as a dict."""
    return json.loads(_native.schema())


def ssp(
    scenarios: Sequence[Union[str, "os.PathLike[str]"]],
    out: Union[str, "os.PathLike[str]"],
    *,
    step: Optional[float] = None,
    params: Optional[Mapping[str, Union[float, bool]]] = None,
    osp: Union[None, str, "os.PathLike[str]"] = None,
    platforms: Union[None, str, Iterable[str]] = None,
    runtime: Union[None, str, "os.PathLike[str]"] = None,
    runtimes_dir: Union[None, str, "os.PathLike[str]"] = None,
) -> Dict[str, Any]:
    """Packages scenario files as one SSP system ``out`` (``.ssp``), connected by
    variable name (docs/cosimulation.md); with ``osp`` also libcosim's
    OspSystemStructure.xml and the FMUs in that folder. ``params`` binds parameter
    values in the SSD: ``{"contact:terrain.zeta": 0.8}``. Returns ``{"ssp": path,
    "components": [(name, fmu in the archive)], "connections": [(from, output, to,
    input)]}``."""
    bound = []
    for key, value in (params or {}).items():
        comp, sep, var = key.partition(":")
        if not sep or not comp or not var:
            raise ValueError(f"params: '{key}': expected 'COMPONENT:VARIABLE', e.g. 'contact:terrain.zeta'")
        bound.append((comp, var, ("true" if value else "false") if isinstance(value, bool) else repr(float(value))))
    try:
        comps, conns = _native.ssp([os.fspath(s) for s in scenarios], os.fspath(out), step, bound, _opt(osp),
                                   _opt(runtime), _opt(runtimes_dir), _platforms(platforms))
    except _native.NativeError as e:
        _raise(e)
    return {"ssp": Path(out), "components": comps, "connections": conns}


def fit(
    spec: Json,
    out: Union[str, "os.PathLike[str]"] = "target/fit",
    *,
    evaluator: Optional[str] = None,
    base_dir: Union[None, str, "os.PathLike[str]"] = None,
    runtime: Union[None, str, "os.PathLike[str]"] = None,
) -> Dict[str, Any]:
    """Fits FMI parameters of a scenario to a reference (docs/calibration.md): ``spec``
    is a fit description (file or dict; its ``model`` path relative to its folder or
    ``base_dir``). Writes ``out/fit.json``, ``patch.json`` (for ``package(...,
    patch=...)``) and ``fit.md``; returns fit.json's content. ``evaluator``: a
    command that runs the evaluations in other processes (``--evaluator``)."""
    text, file, folder = _source(spec, base_dir, "fit")
    try:
        return json.loads(_native.fit(text, file, folder, os.fspath(out), evaluator, _opt(runtime)))
    except _native.NativeError as e:
        _raise(e)


def cli(args: Sequence[Union[str, "os.PathLike[str]"]], *, check: bool = True) -> int:
    """Runs the ``contact-fmu`` command line with ``args`` (without the program name)
    in this process, e.g. ``cli(["package", "a.json", "-o", "fmus"])``; its messages
    go to stderr as in a terminal. Returns the exit code (0 done, 1 failed, 2 usage);
    with ``check`` a non-zero code raises :class:`PackagingError`."""
    if isinstance(args, (str, os.PathLike)):
        raise TypeError("args: a list of arguments, e.g. ['check', 'a.json']")
    argv = [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]
    code = _native.cli(["contact-fmu", *argv])
    if check and code != 0:
        raise PackagingError(f"contact-fmu {' '.join(argv)}: exit code {code} (the message is above, on stderr)")
    return code


def asset(kind: str, out: Union[str, "os.PathLike[str]"], **options: Any) -> Path:
    """Generates a procedural asset (``kind``: ``wheel``, ``surface``, ``rock``,
    ``rocks`` or ``json``) into the folder ``out``, as ``contact-fmu asset KIND``
    (docs/assets.md): keyword options are its flags with ``_`` for ``-``
    (``d_min=0.04`` is ``--d-min 0.04``; ``True`` gives a bare flag; a list or tuple is
    comma-separated). Returns ``out``."""
    args = ["asset", kind]
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(str(v) for v in value)]
        else:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    cli(args + ["--out", os.fspath(out)])
    return Path(out)
