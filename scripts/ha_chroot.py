"""A Debian chroot for Home Assistant releases that need a newer Python than the host's (ha-check --release).

The host is Debian 12 (Python 3.11); Home Assistant 2025.x needs Python 3.13, which Debian trixie
ships. Only Debian's and PyPI's registries are reachable, so: debootstrap trixie into the cache
directory, a venv at /venv inside it, Home Assistant pip-installed there. Nothing is mounted on the
host: every command inside the chroot runs as

    unshare --mount --propagation private -- sh -c 'mount proc, sysfs, /dev, binds; exec chroot DIR CMD'

so /proc, /sys, /dev and the bind-mounted config directory exist only in a private mount namespace
that the kernel drops when CMD exits (also on Ctrl-C, SIGKILL or a failed check). The chroot keeps
the host's network namespace: loopback reaches the host's mosquitto and agent.

Used by scripts/ha-check; standard library only (runs on the host's Python).
"""
import os
import shlex
import shutil
import subprocess
import sys
import time

SUITE = "trixie"  # Python 3.13
MIRROR = "http://deb.debian.org/debian"
# Python and what pip needs to build the few sdists (none expected with the 2025.4 constraints).
# libturbojpeg0: the camera integration's (an error in the log without it).
PACKAGES = ["python3", "python3-venv", "python3-dev", "python3-pip", "gcc", "g++", "libc6-dev", "ca-certificates",
            "libturbojpeg0"]
MARKER = ".edgemotion-debootstrap"
# The environment of commands inside the chroot (the host's PATH has host-only directories).
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}


def chroot_dir(cache, suite=SUITE):
    return os.path.join(cache, f"ha-chroot-{suite}")


def mounts_under(root):
    """Mount points at or under `root` in this (the host's) mount namespace: should always be empty."""
    root = os.path.realpath(root)
    with open("/proc/self/mounts") as f:
        points = [line.split()[1].replace("\\040", " ") for line in f]
    return [p for p in points if p == root or p.startswith(root + "/")]


def ensure_chroot(root, log, suite=SUITE):
    """debootstraps `suite` into `root` unless its marker exists (idempotent); returns `root`."""
    marker = os.path.join(root, MARKER)
    packages_line = "packages: " + " ".join(PACKAGES)
    if os.path.exists(marker):
        done = open(marker).read().splitlines()
        if packages_line not in done:  # made with another package list: install what it lacks
            log(f"apt-get install in {root}: {' '.join(PACKAGES)}")
            share_host_network_setup(root)
            run(root, ["apt-get", "update", "-q"], env=ENV, check=True, stdout=subprocess.DEVNULL)
            run(root, ["apt-get", "install", "-y", "-q"] + PACKAGES, env=dict(ENV, DEBIAN_FRONTEND="noninteractive"),
                check=True, stdout=subprocess.DEVNULL)
            with open(marker, "w") as f:
                f.write(f"{done[0]}\n{packages_line}\n")
        return root
    if mounts_under(root):
        raise RuntimeError(f"{root} has mounts ({mounts_under(root)}); unmount them first")
    debootstrap = shutil.which("debootstrap") or ("/usr/sbin/debootstrap" if os.path.exists("/usr/sbin/debootstrap") else None)
    if debootstrap is None:
        log("debootstrap missing on the host: apt-get install -y debootstrap")
        subprocess.run(["apt-get", "install", "-y", "debootstrap"], check=True)
        debootstrap = shutil.which("debootstrap") or "/usr/sbin/debootstrap"
    if os.path.exists(root):
        log(f"{root} has no {MARKER} (an interrupted debootstrap): starting it again")
        shutil.rmtree(root)
    t0 = time.time()
    log(f"debootstrap {suite} into {root} (once; about a minute and 700 MB)")
    os.makedirs(os.path.dirname(root), exist_ok=True)
    subprocess.run([debootstrap, "--variant=minbase", "--include=" + ",".join(PACKAGES), suite, root, MIRROR], check=True)
    with open(marker, "w") as f:
        f.write(f"{suite} debootstrapped in {time.time() - t0:.0f} s\n{packages_line}\n")
    log(f"debootstrapped in {time.time() - t0:.0f} s")
    return root


def share_host_network_setup(root, env=ENV):
    """What pip inside the chroot needs to reach PyPI as the host does: the host's resolv.conf and
    the host's local CA certificates (/usr/local/share/ca-certificates, e.g. a TLS-inspecting
    proxy's) added to the chroot's trust store. Run before each install; cheap, idempotent."""
    shutil.copyfile("/etc/resolv.conf", os.path.join(root, "etc", "resolv.conf"))
    local = "/usr/local/share/ca-certificates"
    if os.path.isdir(local) and os.listdir(local):
        shutil.copytree(local, os.path.join(root, local.lstrip("/")), dirs_exist_ok=True)
        run(root, ["update-ca-certificates"], env=env, check=True, stdout=subprocess.DEVNULL)


def command(root, argv, binds=None):
    """The host argv that runs `argv` inside the chroot with /proc, /sys, /dev (and `binds`:
    {host path: path in the chroot}) mounted in a private mount namespace. `exec` all the way down:
    the process started is `argv[0]` itself, so a SIGTERM to it reaches it."""
    root = os.path.realpath(root)
    q = shlex.quote
    steps = ["set -e",
             f"mount -t proc proc {q(root + '/proc')}",
             f"mount -t sysfs sysfs {q(root + '/sys')}",
             f"mount --rbind /dev {q(root + '/dev')}"]
    for host, inside in (binds or {}).items():
        target = root + "/" + inside.lstrip("/")
        steps.append(f"mkdir -p {q(target)}")
        steps.append(f"mount --bind {q(os.path.realpath(host))} {q(target)}")
    steps.append(f'exec chroot {q(root)} "$@"')
    return ["unshare", "--mount", "--propagation", "private", "--", "sh", "-c", "; ".join(steps), "sh"] + list(argv)


def run(root, argv, binds=None, **kw):
    return subprocess.run(command(root, argv, binds), **kw)


def popen(root, argv, binds=None, **kw):
    return subprocess.Popen(command(root, argv, binds), **kw)


def ensure_client_venv(venv, log):
    """A host venv with aiohttp for ha-check's REST/websocket client, which runs on the host (with
    mosquitto and the agent) while Home Assistant runs in the chroot, whose Python the host cannot run."""
    if not os.path.exists(os.path.join(venv, ".complete")):
        log(f"making {venv} (aiohttp, once)")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "--disable-pip-version-check", "install", "-q", "aiohttp"], check=True)
        open(os.path.join(venv, ".complete"), "w").close()
    return venv
