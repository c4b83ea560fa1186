"""The check that a recorded code_version (run summaries, dumps) names the sources it was
built from, shared by the tests of tools/ (test_sweep.py, test_yt_open.py)."""
import os
import re
import shutil
import subprocess


def check_code_version(root, versions):
    """Built from a git checkout of its own (`root`, the sources), the one code version in
    `versions` names a commit of it (git describe --always --dirty); else it is the
    version alone."""
    assert len(versions) == 1, versions
    [version] = versions
    git = shutil.which("git")
    if git is None:
        print(f"code_version {version!r}; no git here to check its revision")
        return
    top = subprocess.run([git, "rev-parse", "--show-toplevel"], cwd=root,
                         capture_output=True, text=True)
    own = top.returncode == 0 and os.path.realpath(top.stdout.strip()) == os.path.realpath(root)
    m = re.fullmatch(r"patchwork [0-9.]+(?: \(git (\S+)\))?", version)
    assert m, version
    print(f"code_version {version!r}; sources {'a' if own else 'not a'} git checkout")
    assert bool(m.group(1)) == own, version
    if own:
        rev = re.sub(r"-dirty$", "", m.group(1))
        commit = re.search(r"(?:-g)?([0-9a-f]{7,})$", rev).group(1)
        subprocess.run([git, "cat-file", "-e", commit + "^{commit}"], cwd=root, check=True)
