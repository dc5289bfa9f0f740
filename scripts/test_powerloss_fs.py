#!/usr/bin/env python3
"""Self-test of scripts/powerloss_fs.py: python3 scripts/test_powerloss_fs.py

Each check mounts a fresh file system in a temporary folder, acts on it as the program under
test would, cuts the power (SIGKILL the FS process, `fusermount -u -z`, mount again on the
same state) and looks at what survived. Prints PASS/FAIL per check and 'N passed, M failed';
exits non-zero on any failure. Every mount is undone at the end, failure or not. Needs root,
/dev/fuse, fusermount and fusepy.
"""

import errno
import fcntl
import hashlib
import json
import os
import queue
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

FS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "powerloss_fs.py")
MOUNT_TIMEOUT = 10


class Mount:
    """One powerloss_fs instance: a mountpoint, its state folder and the FS process."""

    live = []  # for the cleanup at exit

    def __init__(self, base, fs_args=()):
        self.mnt = os.path.join(base, "mnt")
        self.state = os.path.join(base, "state")
        self.log = os.path.join(base, "fs.log")
        self.fs_args = list(fs_args)
        self.proc = None
        self.lines = []  # what the FS printed on stdout, all runs
        os.mkdir(self.mnt)

    def p(self, *parts):
        return os.path.join(self.mnt, *parts)

    def start(self):
        with open(self.log, "a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, FS, self.mnt, "--state", self.state, *self.fs_args],
                stdout=subprocess.PIPE, stderr=log, text=True)
        Mount.live.append(self)
        lines = queue.Queue()
        threading.Thread(target=lambda out: [lines.put(l.rstrip("\n")) for l in out],
                         args=(self.proc.stdout,), daemon=True).start()
        deadline = time.monotonic() + MOUNT_TIMEOUT
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.1)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            self.lines.append(line)
            if line == f"powerloss_fs: mounted {self.mnt}":
                return
        raise AssertionError(f"no 'mounted' line from the FS; stderr: {self.stderr_tail()}")

    def kill(self):
        """The FS side of a power cut: SIGKILL, then the lazy unmount."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait()
        subprocess.run(["fusermount", "-u", "-z", self.mnt], stderr=subprocess.DEVNULL)
        if self in Mount.live:
            Mount.live.remove(self)

    def cut(self):
        """A power cut and a restart on the durable image."""
        self.kill()
        self.start()

    def unmount(self):
        """A clean unmount: everything is synced first."""
        subprocess.run(["fusermount", "-u", self.mnt], check=True, stderr=subprocess.DEVNULL)
        self.proc.wait(timeout=10)
        Mount.live.remove(self)

    def stop(self):
        try:
            if self in Mount.live:
                self.unmount()
        except Exception:
            self.kill()

    def stderr_tail(self):
        with open(self.log) as f:
            return f.read()[-2000:]

    def counters(self):
        with open(os.path.join(self.state, "counters.json")) as f:
            return json.load(f)


def write_file(path, data, sync=True, flags=os.O_WRONLY | os.O_CREAT | os.O_TRUNC):
    fd = os.open(path, flags, 0o644)
    try:
        os.write(fd, data)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def sync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_errno(code, call, *args):
    try:
        call(*args)
    except OSError as e:
        expect(e.errno == code, f"{call.__name__}: errno {e.errno}, wanted {errno.errorcode[code]}")
        return
    raise AssertionError(f"{call.__name__} succeeded, wanted {errno.errorcode[code]}")


CHECKS = []


def check(fs_args=()):
    def register(fn):
        CHECKS.append((fn, fs_args))
        return fn
    return register


# --- the durability model ---

@check()
def fsynced_file_in_unsynced_folder_is_gone(fs):
    write_file(fs.p("a"), b"data")
    fs.cut()
    expect(not os.path.exists(fs.p("a")), "the file survived without a folder fsync")


@check()
def fsynced_file_in_synced_folder_survives(fs):
    write_file(fs.p("a"), b"data")
    sync_dir(fs.mnt)
    fs.cut()
    expect(read(fs.p("a")) == b"data", "content lost")


@check()
def unsynced_data_in_synced_folder_is_empty(fs):
    write_file(fs.p("a"), b"data", sync=False)
    sync_dir(fs.mnt)
    fs.cut()
    expect(os.path.exists(fs.p("a")), "the name is gone")
    expect(read(fs.p("a")) == b"", "unsynced data survived")


@check()
def in_place_rewrite_without_fsync_keeps_old_content(fs):
    write_file(fs.p("a"), b"old content")
    sync_dir(fs.mnt)
    write_file(fs.p("a"), b"new", sync=False)
    expect(read(fs.p("a")) == b"new", "the volatile content is wrong")
    fs.cut()
    expect(read(fs.p("a")) == b"old content", "the unsynced rewrite survived")


@check()
def atomic_replace_with_folder_fsync_gives_new_content(fs):
    write_file(fs.p("target"), b"old")
    sync_dir(fs.mnt)
    write_file(fs.p("target.tmp"), b"new")
    os.rename(fs.p("target.tmp"), fs.p("target"))
    sync_dir(fs.mnt)
    fs.cut()
    expect(read(fs.p("target")) == b"new", "old content after a synced replace")
    expect(os.listdir(fs.mnt) == ["target"], f"names: {os.listdir(fs.mnt)}")


@check()
def atomic_replace_without_folder_fsync_gives_old_content(fs):
    write_file(fs.p("target"), b"old")
    sync_dir(fs.mnt)
    write_file(fs.p("target.tmp"), b"new")
    os.rename(fs.p("target.tmp"), fs.p("target"))
    fs.cut()
    expect(read(fs.p("target")) == b"old", "the unsynced rename survived")
    expect(os.listdir(fs.mnt) == ["target"], f"names: {os.listdir(fs.mnt)}")


@check()
def mkdir_without_parent_fsync_is_gone_with_children(fs):
    os.makedirs(fs.p("d", "e"))
    write_file(fs.p("d", "f"), b"f")
    write_file(fs.p("d", "e", "g"), b"g")
    sync_dir(fs.p("d", "e"))
    sync_dir(fs.p("d"))
    fs.cut()
    expect(os.listdir(fs.mnt) == [], f"names: {os.listdir(fs.mnt)}")
    records = os.listdir(os.path.join(fs.state, "inodes"))
    expect(records == [], f"unreachable records not collected: {records}")


@check()
def tree_synced_bottom_up_survives(fs):
    os.makedirs(fs.p("d", "e"))
    write_file(fs.p("d", "f"), b"f")
    write_file(fs.p("d", "e", "g"), b"g")
    for folder in (fs.p("d", "e"), fs.p("d"), fs.mnt):
        sync_dir(folder)
    fs.cut()
    expect(read(fs.p("d", "f")) == b"f" and read(fs.p("d", "e", "g")) == b"g", "tree lost")


@check()
def unlink_without_folder_fsync_comes_back(fs):
    write_file(fs.p("kept"), b"kept")
    write_file(fs.p("gone"), b"gone")
    sync_dir(fs.mnt)
    os.unlink(fs.p("kept"))
    fs.cut()
    expect(read(fs.p("kept")) == b"kept", "the unsynced unlink stuck")
    os.unlink(fs.p("gone"))
    sync_dir(fs.mnt)
    fs.cut()
    expect(not os.path.exists(fs.p("gone")), "a synced unlink came back")


@check()
def rename_with_only_target_folder_synced_leaves_both_names(fs):
    os.mkdir(fs.p("src"))
    os.mkdir(fs.p("dst"))
    sync_dir(fs.mnt)
    write_file(fs.p("src", "x"), b"x")
    sync_dir(fs.p("src"))
    os.rename(fs.p("src", "x"), fs.p("dst", "x"))
    sync_dir(fs.p("dst"))
    fs.cut()
    a, b = os.stat(fs.p("src", "x")), os.stat(fs.p("dst", "x"))
    expect(a.st_ino == b.st_ino and a.st_nlink == 2, "not two links to one inode")
    expect(read(fs.p("dst", "x")) == b"x", "content lost")
    os.unlink(fs.p("src", "x"))
    expect(read(fs.p("dst", "x")) == b"x", "unlinking one name lost the other")
    return "the old name comes back beside the synced new one"


@check()
def append_lines_with_fsync(fs):
    fd = os.open(fs.p("log"), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
    sync_dir(fs.mnt)
    os.write(fd, b"one\n")
    os.fsync(fd)
    os.pwrite(fd, b"two\n", 0)  # with O_APPEND the offset is ignored
    os.fsync(fd)
    os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, b"three\n")
    os.fdatasync(fd)
    os.write(fd, b"four\n")
    os.close(fd)
    expect(read(fs.p("log")) == b"one\ntwo\nthree\nfour\n", f"volatile: {read(fs.p('log'))!r}")
    fs.cut()
    expect(read(fs.p("log")) == b"one\ntwo\nthree\n", f"after the cut: {read(fs.p('log'))!r}")


@check()
def flock_excludes_a_second_process(fs):
    probe = ("import fcntl, os, sys\n"
             "fd = os.open(sys.argv[1], os.O_RDWR)\n"
             "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
             "except BlockingIOError:\n    sys.exit(1)\n")
    fd = os.open(fs.p("lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held = subprocess.run([sys.executable, "-c", probe, fs.p("lock")]).returncode
        fcntl.flock(fd, fcntl.LOCK_UN)
        free = subprocess.run([sys.executable, "-c", probe, fs.p("lock")]).returncode
    finally:
        os.close(fd)
    expect(held == 1, "a second process got LOCK_EX|LOCK_NB while the first held it")
    expect(free == 0, "LOCK_EX|LOCK_NB failed on a free lock")


@check()
def thirty_mib_in_one_mib_pieces(fs):
    piece_count, piece = 30, 1 << 20
    data = random.Random(7).randbytes(piece_count * piece)
    fd = os.open(fs.p("big"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    start = time.monotonic()
    for i in range(piece_count):
        os.write(fd, data[i * piece:(i + 1) * piece])
    written = time.monotonic()
    os.fsync(fd)
    synced = time.monotonic()
    os.close(fd)
    sync_dir(fs.mnt)
    fs.cut()
    start_read = time.monotonic()
    back = read(fs.p("big"))
    read_time = time.monotonic() - start_read
    expect(hashlib.sha256(back).digest() == hashlib.sha256(data).digest(), "content differs")
    mib = len(data) / (1 << 20)
    return (f"write {mib / (written - start):.0f} MiB/s, fsync {1000 * (synced - written):.0f} ms, "
            f"read after cut {mib / read_time:.0f} MiB/s")


@check(fs_args=["--fail-fsyncdir", "/spool", "--fail-fsync", "*.bad"])
def injected_fsync_failures_return_eio(fs):
    os.mkdir(fs.p("spool"))
    sync_dir(fs.mnt)
    write_file(fs.p("spool", "f"), b"f")
    expect_errno(errno.EIO, sync_dir, fs.p("spool"))
    expect_errno(errno.EIO, write_file, fs.p("x.bad"), b"bad")
    sync_dir(fs.mnt)
    counters = fs.counters()
    expect(counters["fsyncdir_eio"] == 1 and counters["fsync_eio"] == 1, f"counters {counters}")
    fs.cut()
    expect(os.listdir(fs.p("spool")) == [], "a failed folder fsync made its entries durable")
    expect(read(fs.p("x.bad")) == b"", "a failed fsync made data durable")


@check()
def clean_unmount_syncs_everything(fs):
    os.mkdir(fs.p("d"))
    write_file(fs.p("d", "f"), b"never fsynced", sync=False)
    fs.unmount()
    fs.start()
    expect(read(fs.p("d", "f")) == b"never fsynced", "a clean unmount lost data")
    expect(fs.lines[-2].endswith("1 dirs, 1 files, 13 bytes"), f"image line: {fs.lines[-2]!r}")


@check()
def posix_calls(fs):
    p = fs.p("f")
    write_file(p, b"0123456789")
    expect_errno(errno.EEXIST, os.open, p, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    fd = os.open(p, os.O_RDWR)
    os.pwrite(fd, b"xy", 20)  # past the end: a hole of zeros
    expect(os.pread(fd, 100, 8) == b"89" + bytes(10) + b"xy", "pwrite past the end")
    os.ftruncate(fd, 4)
    expect(os.fstat(fd).st_size == 4 and os.pread(fd, 10, 0) == b"0123", "ftruncate")
    os.fchmod(fd, 0o640)
    os.utime(p, ns=(1_600_000_000_123_456_789, 1_700_000_000_987_654_321))
    os.fsync(fd)
    os.close(fd)
    expect(os.stat(p).st_mtime_ns == 1_700_000_000_987_654_321, "mtime nanoseconds")
    expect_errno(errno.EEXIST, os.mkdir, p)
    os.mkdir(fs.p("d"))
    write_file(fs.p("d", "x"), b"x")
    expect_errno(errno.ENOTEMPTY, os.rmdir, fs.p("d"))
    expect_errno(errno.EISDIR, os.unlink, fs.p("d"))
    expect(sorted(os.listdir(fs.mnt)) == ["d", "f"], "readdir")
    expect(os.access(p, os.R_OK | os.W_OK), "access")
    expect(os.statvfs(fs.mnt).f_bavail * os.statvfs(fs.mnt).f_frsize >= 50 * 10**9, "statfs")
    write_file(fs.p("g"), b"gg")
    fd = os.open(fs.p("g"), os.O_RDWR)
    os.rename(p, fs.p("g"))  # replaces g; the open descriptor keeps the old inode
    expect(read(fs.p("g")) == b"0123", "rename over an existing file")
    os.write(fd, b"GG")
    expect(os.pread(fd, 10, 0) == b"GG" and os.fstat(fd).st_nlink == 0, "replaced inode via fd")
    os.close(fd)
    fd = os.open(fs.p("d", "x"), os.O_RDWR | os.O_TRUNC)  # O_TRUNC, then an unlink while open
    os.unlink(fs.p("d", "x"))
    expect(os.listdir(fs.p("d")) == [], f"names in d: {os.listdir(fs.p('d'))}")
    os.write(fd, b"still here")
    os.fsync(fd)
    expect(os.pread(fd, 20, 0) == b"still here" and os.fstat(fd).st_size == 10,
           "unlinked open file")
    sync_dir(fs.p("d"))
    os.rmdir(fs.p("d"))
    os.close(fd)
    sync_dir(fs.mnt)
    fs.cut()
    st = os.stat(fs.p("g"))
    expect(st.st_mode & 0o777 == 0o640, f"mode after the cut: {oct(st.st_mode)}")
    expect(st.st_mtime_ns == 1_700_000_000_987_654_321, "mtime after the cut")
    expect(sorted(os.listdir(fs.mnt)) == ["g"], f"names after the cut: {os.listdir(fs.mnt)}")


# --- killing the FS process itself in the middle of its work ---

WRITER = r"""
import os, sys
folder = sys.argv[1]
def sync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY); os.fsync(fd); os.close(fd)
journal = os.open(os.path.join(folder, "journal"), os.O_WRONLY | os.O_CREAT, 0o644)
log = os.open(os.path.join(folder, "log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
sync_dir(folder)
i = 0
while True:
    fd = os.open(os.path.join(folder, f"f{i:06d}"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, (f"{i}," * (i % 300 + 1)).encode()); os.fsync(fd); os.close(fd)
    sync_dir(folder)
    os.ftruncate(journal, 0); os.pwrite(journal, (f"{i};" * (i % 500 + 1)).encode(), 0)
    os.fsync(journal)
    os.write(log, f"line {i}\n".encode()); os.fsync(log)
    i += 1
"""


def verify_writer_folder(folder):
    """What a writer that was cut must have left: returns the number of files made durable."""
    names = sorted(n for n in os.listdir(folder) if n.startswith("f"))
    count = len(names)
    expect(names == [f"f{i:06d}" for i in range(count)], "the durable files are not a prefix")
    for i, name in enumerate(names):
        expect(read(os.path.join(folder, name)) == (f"{i}," * (i % 300 + 1)).encode(),
               f"{name} is torn")
    journal = read(os.path.join(folder, "journal"))
    versions = [j for j in (count - 2, count - 1) if j >= 0]
    expect(journal in [b""] * (count < 2) + [(f"{j};" * (j % 500 + 1)).encode() for j in versions],
           f"journal is not version {versions} of {count} files: {journal[:40]!r}")
    lines = read(os.path.join(folder, "log")).decode().splitlines()
    expect(lines == [f"line {i}" for i in range(len(lines))] and len(lines) in (count - 1, count)
           or count == 0, f"log has {len(lines)} lines for {count} files")
    return count


@check()
def fs_killed_during_fsyncs_leaves_a_consistent_image(fs):
    rng = random.Random(1)
    counts = []
    for round_ in range(4):
        folder = fs.p(f"round{round_}")
        os.mkdir(folder)
        sync_dir(fs.mnt)
        writer = subprocess.Popen([sys.executable, "-c", WRITER, folder], stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.4, 1.2))
        fsyncs = fs.counters()["fsync"]
        fs.proc.kill()  # the FS dies first, most likely in the middle of an fsync
        fs.proc.wait()
        writer.kill()
        writer.wait()
        fs.cut()
        for earlier in range(round_):
            expect(verify_writer_folder(fs.p(f"round{earlier}")) == counts[earlier],
                   f"round {earlier} changed after a later cut")
        counts.append(verify_writer_folder(folder))
        expect(counts[-1] > 0 and fsyncs > 0, f"the writer made nothing durable ({fsyncs} fsyncs)")
    with open(os.path.join(fs.state, "inodes", "1.json")) as f:
        expect(len(json.load(f)["entries"]) == 4, "root entries")
    named = set()
    for name in os.listdir(os.path.join(fs.state, "inodes")):
        with open(os.path.join(fs.state, "inodes", name)) as f:
            rec = json.load(f)
        if rec["kind"] == "f":
            named.add(f"{name[:-5]}.{rec['blob']}")
    stray = set(os.listdir(os.path.join(fs.state, "blobs"))) - named
    expect(not stray, f"blobs no record names: {sorted(stray)[:5]}")
    return f"files made durable per round: {counts}"


def main():
    top = tempfile.mkdtemp(prefix="powerloss_fs_test.")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # run the cleanup below
    passed = failed = 0
    started = time.monotonic()
    try:
        for fn, fs_args in CHECKS:
            fs = Mount(tempfile.mkdtemp(dir=top), fs_args)
            name = fn.__name__.replace("_", " ")
            try:
                fs.start()
                detail = fn(fs)
                print(f"PASS {name}" + (f" ({detail})" if detail else ""), flush=True)
                passed += 1
            except Exception as e:
                print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
                tail = fs.stderr_tail().strip()
                if tail:
                    print("  FS stderr: " + tail.replace("\n", "\n  "), flush=True)
                failed += 1
            finally:
                fs.stop()
    finally:
        for fs in list(Mount.live):
            fs.kill()
        shutil.rmtree(top, ignore_errors=True)
    print(f"({time.monotonic() - started:.1f} s)")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
