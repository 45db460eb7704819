"""Which files a walk finds: built-in skipped folders, .gitignore files at every level up to the
repository's root, a named folder that an ancestor's .gitignore hides, links."""

from __future__ import annotations

from pathlib import Path

from shapecheck.config import Config
from shapecheck.files import discover


def found(paths: list[Path], root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path in discover(paths, Config(root=root))]


def make(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")


def test_the_walk_skips_builtin_folders_and_what_gitignore_files_say(tmp_path: Path) -> None:
    (tmp_path / "outside.gitignore").write_text("")
    repo = tmp_path / "repo"
    make(repo, "a.py", "b.txt", "build/x.py", "dist/x.py", "pkg.egg-info/x.py", ".egg-info/x.py", "venv/x.py",
         "src/c.py", "src/gen/d.py", "src/deep/e.py", "src/deep/f.py", "src/deep/keep.pyi")
    (repo / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.py\n")  # above the repository's root: never read
    (repo / ".gitignore").write_text("gen/\n")
    (repo / "src" / "deep" / ".gitignore").write_text("e.py\n")
    assert found([repo], tmp_path) == ["repo/a.py", "repo/src/c.py", "repo/src/deep/f.py", "repo/src/deep/keep.pyi"]


def test_a_named_folder_hidden_by_an_ancestors_gitignore_is_walked(tmp_path: Path) -> None:
    make(tmp_path, "gen/a.py", "gen/sub/b.py", "gen/sub/c.py")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("gen/\n")
    (tmp_path / "gen" / "sub" / ".gitignore").write_text("c.py\n")  # inside it, still applied
    assert found([tmp_path], tmp_path) == []
    assert found([tmp_path / "gen"], tmp_path) == ["gen/a.py", "gen/sub/b.py"]


def test_links_in_a_walk(tmp_path: Path) -> None:
    make(tmp_path, "real/a.py", "elsewhere/b.py")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("hidden.py\n")
    (tmp_path / "real" / "folder_link").symlink_to(tmp_path / "elsewhere")  # not followed
    (tmp_path / "real" / "link.py").symlink_to(tmp_path / "elsewhere" / "b.py")
    (tmp_path / "real" / "hidden.py").symlink_to(tmp_path / "elsewhere" / "b.py")
    (tmp_path / "real" / "dir.py").symlink_to(tmp_path / "elsewhere")  # a folder: not a source
    assert found([tmp_path / "real"], tmp_path) == ["real/a.py", "real/hidden.py", "real/link.py"]  # a link is matched as its target
