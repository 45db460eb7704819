"""`shapecheck run`: a program written for the removed xmap runs unchanged."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from shapecheck import runner

PROGRAM = textwrap.dedent('''
    import sys
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.nn import one_hot, relu
    from jax.scipy.special import logsumexp
    from jax.experimental.maps import xmap, Mesh

    def named_predict(w1, w2, image):
        hidden = relu(lax.pdot(image, w1, 'inputs'))
        logits = lax.pdot(hidden, w2, 'hidden')
        return logits - logsumexp(logits, 'classes')

    def named_loss(w1, w2, images, labels):
        predictions = named_predict(w1, w2, images)
        num_classes = lax.psum(1, 'classes')
        targets = one_hot(labels, num_classes, axis='classes')
        losses = lax.psum(targets * predictions, 'classes')
        return -lax.pmean(losses, 'batch')

    w1, w2 = jnp.zeros((16, 8)), jnp.zeros((8, 4))
    images, labels = jnp.zeros((8, 16)), jnp.zeros(8, dtype=jnp.int32)
    in_axes = [['inputs', 'hidden', ...], ['hidden', 'classes', ...], ['batch', 'inputs', ...], ['batch', ...]]
    loss = xmap(named_loss, in_axes=in_axes, out_axes=[...], axis_resources={'batch': 'x'})
    with Mesh(np.array(jax.local_devices()), ('x',)):
        value = loss(w1, w2, images, labels)
    print('loss', float(value), sys.argv[1:])
    sys.exit(3 if sys.argv[1:] == ['fail'] else 0)
''')


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "prog.py"
    path.write_text(text)
    return str(path)


@pytest.mark.filterwarnings("ignore:.*context manager has been deprecated")
def test_runs_a_program_written_for_xmap_with_its_arguments(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    program = write(tmp_path, PROGRAM)
    assert runner.main([program, "a", "b"]) in (0, 2)  # 2 only when the analyzer is unavailable
    capsys.readouterr()
    assert runner.main(["--no-check", program, "a", "b"]) == 0
    out = capsys.readouterr().out
    assert "loss 1.386" in out and "['a', 'b']" in out
    assert runner.main(["--no-check", program, "fail"]) == 3
    # jax is itself again afterwards.
    import jax

    assert "shapecheck" not in jax.numpy.__name__
    assert "jax.experimental.maps" not in sys.modules


def test_a_program_s_legacy_mesh_context_runs_without_a_warning(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`with Mesh(...)` is how xmap programs enter a mesh: under `shapecheck run` it is jax.set_mesh."""
    from jax.sharding import Mesh

    enter = Mesh.__enter__
    program = write(tmp_path, PROGRAM)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert runner.main(["--no-check", program]) == 0, capsys.readouterr().err
    assert "loss 1.386" in capsys.readouterr().out
    assert Mesh.__enter__ is enter  # jax's own context again afterwards


def test_refuses_a_program_with_shape_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = write(tmp_path, textwrap.dedent('''
        import jax.numpy as jnp
        from shapecheck import f32
        x: f32[(2, 3)] = jnp.ones((2, 3))
        y: f32[(4,)] = jnp.ones((5,))
        print('ran')
    '''))
    code = runner.main([program])
    captured = capsys.readouterr()
    assert code == 1
    assert "SC103" in captured.err and "ran" not in captured.out
    assert runner.main(["--no-check", program]) == 0


def test_checker_unavailable_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "shapecheck.engine", None)  # makes the import fail
    program = write(tmp_path, "print('hi')\n")
    assert runner.main([program]) == 2
    assert "--no-check" in capsys.readouterr().err
    assert runner.main(["--no-check", program]) == 0


def test_usage_errors(tmp_path: Path) -> None:
    assert runner.main([]) == 2
    assert runner.main([str(tmp_path / "missing.py")]) == 2


def test_program_exception_exits_1(tmp_path: Path) -> None:
    assert runner.main(["--no-check", write(tmp_path, "raise RuntimeError('boom')\n")]) == 1


def test_a_refusal_shows_the_program_s_frames_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = write(tmp_path, textwrap.dedent('''\
        import jax.numpy as jnp
        from jax.experimental.maps import xmap

        def run(f):
            return f(jnp.arange(5.0), jnp.arange(7.0))

        run(xmap(lambda a, b: a * b, in_axes=(['i', ...], ['i', ...]), out_axes=['i', ...]))
    '''))
    assert runner.main(["--no-check", program]) == 1
    err = capsys.readouterr().err
    assert "prog.py:5:12: SC102 named axis 'i' has size 7" in err
    frames = [line.strip() for line in err.splitlines() if line.lstrip().startswith("File ")]
    assert len(frames) == 2 and all(program in frame for frame in frames), err


def test_importing_the_runner_does_not_import_jax() -> None:
    code = "import sys, shapecheck.runner; assert 'jax' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
