# GPU Checkup probe, injected by `checkup-agent run` through PYTHONPATH. It attaches step and
# data-wait timing and a short torch.profiler window, then hands over to any sitecustomize
# the environment already had. It never stops training: every failure is recorded and ignored.
import os as _os
import sys as _sys


def _checkup_chain():
    """Imports the next sitecustomize on sys.path, as if this one were not there."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    saved_path = list(_sys.path)
    saved_module = _sys.modules.pop("sitecustomize", None)
    try:
        _sys.path[:] = [p for p in _sys.path if _os.path.abspath(p or ".") != here]
        import importlib
        try:
            importlib.import_module("sitecustomize")
        except ImportError:
            pass
    finally:
        _sys.path[:] = saved_path
        if saved_module is not None:
            _sys.modules["sitecustomize"] = saved_module


try:
    import checkup_session as _checkup_session
    _checkup_session.install()
except Exception as _e:  # noqa: BLE001
    try:
        _sys.stderr.write("checkup probe not attached: %r\n" % (_e,))
    except Exception:
        pass
_checkup_chain()
