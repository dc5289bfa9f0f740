#!/usr/bin/env python3
"""powerloss_fs: a FUSE file system that models a power cut, for crash-consistency tests.

Anchors
  * LazyFS (github.com/dsrhaslab/lazyfs; Ramos et al., "When Amnesia Strikes: Understanding
    and Reproducing Data Loss Bugs with Fault Injection", PVLDB 17(11), VLDB 2024), the FUSE
    file system Jepsen uses to lose the writes that were never fsynced.
  * CrashMonkey (Mohan et al., "Finding Crash-Consistency Bugs with Bounded Black-Box Crash
    Testing", OSDI 2018), whose crash states follow the same rule: after a crash, only what
    an fsync/fdatasync of the file or of its folder persisted is guaranteed to be there.

What it models that LazyFS does not
  LazyFS keeps only unsynced file *data* in its cache: a create, rename, unlink or mkdir goes
  straight to the file system below it and survives its crash whether or not the folder was
  fsynced. Here directory entries are volatile too, the strict POSIX reading that PostgreSQL
  (durable_rename, fsync_parent_path) and SQLite follow: a name exists after a cut only if
  its folder was fsynced while it held that name.

The model
  * The volatile state is the whole tree, in memory; every operation changes it.
  * The durable state lives in the backing folder --state DIR on the real disk.
  * fsync/fdatasync(file): the inode's current data, size and mode become durable.
  * fsync(folder) (FUSE fsyncdir): the folder's current entries (name -> inode, type, mode)
    become durable. A child folder named there comes back with the entries IT made durable
    (none: empty); a child file with the data last made durable for its inode (none: empty).
  * Nothing else is durable: a create, rename, unlink or mkdir whose folder was not fsynced
    afterwards is undone by a cut; a file rewritten without fsync keeps its old content.
  * Each durable update is atomic in the backing folder: the data goes to a new blob file,
    or past the committed end of the current one, then the inode's record is replaced (temp
    file + os.replace), which is the commit. Killing this process at any instant leaves an
    image in which each fsync either happened or did not. The backing folder itself is never
    fsynced: the image has to outlive this process, not the machine, so a tmpfs such as
    /dev/shm is a fine (and the fastest) place for it.
  * An inode's mode, owner and times come back from the newer of its own fsync and the
    fsync of the folder naming it.

  A power cut: SIGKILL the program under test, SIGKILL this process, `fusermount -u -z MNT`,
  then start this program again with the same --state; the tree is rebuilt from the durable
  image. A clean unmount (`fusermount -u MNT`, SIGTERM or SIGINT to this process) first makes
  everything durable, as umount(8) does on a real file system.

What it does not model
  * torn or reordered writes within a file: an unsynced file keeps its whole last durable
    content, never a mix of old and new blocks, never a torn sector;
  * hard links (link(2) fails with EPERM), symlinks (ENOSYS), device files, xattrs, and
    atime updates by reads.
  A folder made durable under two names (moved, and only the target folder synced) comes
  back once, under the first name met walking the tree breadth first; a file in the same
  case comes back under both names, as two links to one inode (as on a file system without
  a journal, or with the rename half-applied).

Semantics of the calls
  * O_APPEND: each write lands at the end of the file, whatever offset the kernel passed.
  * flock and fcntl locks are not implemented here, so the kernel keeps them locally
    (-o no_remote_lock): they work between processes using this mount.
  * unlink or rename over a file that is still open: libfuse renames it to a ".fuse_hidden*"
    name first (so that fstat and friends still find it by path; names with that prefix are
    reserved). Such names are kept apart:
    readdir does not list them, an fsync of the folder does not record them, rmdir ignores
    them. The open descriptors keep reading and writing the inode, as on a local file system;
    only if its folder is removed too does fstat(2) fail (ENOENT: libfuse 2 has no path left
    for it, and the kernel's GETATTR for fstat carries no file handle).
  * Kernel caching cannot hide the model: attr/entry/negative timeouts are 0 and every write
    reaches this process at once (libfuse 2 has no writeback cache).
  * Single-threaded (-s): every request runs to completion before the next one.
  * The volatile state lives in this process's memory, including the bytes of every file
    changed since the mount (a file only read since then is read from the image).
  * An fsync of a folder rewrites its whole entry list: its cost grows with the folder. An
    fsync of a file after appends writes only the new bytes; after any other change, the
    whole file.

Durable image (--state DIR)
  inodes/<ino>.json   one record per inode made durable and still reachable:
                        file:   {"kind": "f", "seq", "meta", "size", "blob"}
                        folder: {"kind": "d", "seq", "meta", "entries": {name: [ino, kind, meta]}}
                      meta = [mode, uid, gid, mtime_ns, ctime_ns]; seq orders the records.
  blobs/<ino>.<gen>   a file's durable bytes: its first `size` bytes count (an append cut
                      before its record was replaced leaves bytes past them, ignored).
  counters.json       fsync/fsyncdir counts of the running instance, for a harness
                      (JSON rewritten in place after each fsync, padded with blanks).
  lock                flock'ed by the running instance.
"""

import argparse
import collections
import errno
import fcntl
import fnmatch
import json
import logging
import os
import stat
import sys
import threading
import time

from fuse import FUSE, FuseOSError, fuse_get_context

ROOT_INO = 1
UTIME_NOW = (1 << 30) - 1
UTIME_OMIT = (1 << 30) - 2
FREE_BYTES = 100 * 10**9  # what statfs reports as free
BLOCK = 4096
GC_THRESHOLD = 64 << 20  # estimated bytes of unreachable records before a sweep
COUNTERS_WIDTH = 255  # counters.json is padded with blanks to this size
HIDDEN_PREFIX = ".fuse_hidden"  # libfuse's name for an open file that lost its last name


class Node:
    """One inode of the volatile tree."""

    __slots__ = ("ino", "mode", "uid", "gid", "atime", "mtime", "ctime", "nlink",
                 "children", "hidden", "data", "size", "dirty_from")

    def __init__(self, ino, meta):
        self.ino = ino
        self.mode, self.uid, self.gid, self.mtime, self.ctime = meta
        self.atime = self.mtime
        self.nlink = 0  # names in the tree
        self.children = {} if stat.S_ISDIR(self.mode) else None  # folders: name -> Node
        self.hidden = {} if stat.S_ISDIR(self.mode) else None  # HIDDEN_PREFIX names -> Node
        self.data = bytearray()  # files; None: still only in the durable blob (read lazily)
        self.size = 0
        self.dirty_from = None  # lowest offset that may differ from the durable blob

    @property
    def is_dir(self):
        return self.children is not None

    def meta(self):
        return [self.mode, self.uid, self.gid, self.mtime, self.ctime]


class Handle:
    """An open file or folder: the inode it was opened on, whatever happens to its name."""

    __slots__ = ("node", "append")

    def __init__(self, node, append):
        self.node = node
        self.append = append


class DurableStore:
    """The durable image in the backing folder, and a copy of its records in memory."""

    def __init__(self, folder):
        self.folder = folder
        self.inode_dir = os.path.join(folder, "inodes")
        self.blob_dir = os.path.join(folder, "blobs")
        os.makedirs(self.inode_dir, exist_ok=True)
        os.makedirs(self.blob_dir, exist_ok=True)
        self.records = {}
        for name in os.listdir(self.inode_dir):
            path = os.path.join(self.inode_dir, name)
            if not name.endswith(".json"):
                os.unlink(path)  # the temp file of an update that was cut: it never happened
                continue
            with open(path) as f:
                self.records[int(name[:-5])] = json.load(f)
        self.seq = max((r["seq"] for r in self.records.values()), default=0)
        self.bytes_written = 0

    def max_ino(self):
        inos = [ROOT_INO, *self.records]
        for rec in self.records.values():
            if rec["kind"] == "d":
                inos.extend(entry[0] for entry in rec["entries"].values())
        return max(inos)

    def _record_path(self, ino):
        return os.path.join(self.inode_dir, f"{ino}.json")

    def _blob_path(self, ino, gen):
        return os.path.join(self.blob_dir, f"{ino}.{gen}")

    def _write_json(self, path, obj):
        """Replaces the file at path with obj atomically: a cut leaves the old or the new."""
        text = json.dumps(obj, separators=(",", ":"))
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
        self.bytes_written += len(text)

    def _commit(self, ino, rec):
        self.seq += 1
        rec["seq"] = self.seq
        self._write_json(self._record_path(ino), rec)
        self.records[ino] = rec

    def put_dir(self, node):
        """Makes the folder's entries durable; returns its previous record (or None)."""
        old = self.records.get(node.ino)
        entries = {name: [child.ino, "d" if child.is_dir else "f", child.meta()]
                   for name, child in node.children.items()}
        self._commit(node.ino, {"kind": "d", "meta": node.meta(), "entries": entries})
        return old

    def put_file(self, node):
        """Makes the file's data, size and metadata durable."""
        old = self.records.get(node.ino)
        if old is not None and node.dirty_from is None:
            gen = old["blob"]  # data unchanged since its last sync: only the metadata is new
        elif old is not None and node.dirty_from >= old["size"]:
            # Only appended to: extend the blob in place. Its first old["size"] bytes, all the
            # committed record counts, stay untouched until the new record is in place.
            gen = old["blob"]
            with open(self._blob_path(node.ino, gen), "r+b") as f:
                f.truncate(old["size"])
                f.seek(old["size"])
                f.write(node.data[old["size"]:])
            self.bytes_written += node.size - old["size"]
        else:
            # Rewritten or shrunk: a new blob, which the old record does not name.
            gen = old["blob"] + 1 if old is not None else 0
            with open(self._blob_path(node.ino, gen), "wb") as f:
                f.write(node.data)
            self.bytes_written += node.size
        self._commit(node.ino, {"kind": "f", "meta": node.meta(), "size": node.size, "blob": gen})
        if old is not None and old["blob"] != gen:
            os.unlink(self._blob_path(node.ino, old["blob"]))
        node.dirty_from = None

    def read_blob(self, ino, offset, length):
        rec = self.records[ino]
        length = max(0, min(length, rec["size"] - offset))
        with open(self._blob_path(ino, rec["blob"]), "rb") as f:
            f.seek(offset)
            return f.read(length)

    def closure(self, roots):
        """The inodes whose records can matter: roots, and all that their records name."""
        seen, stack = set(), list(roots)
        while stack:
            ino = stack.pop()
            if ino in seen:
                continue
            seen.add(ino)
            rec = self.records.get(ino)
            if rec is not None and rec["kind"] == "d":
                stack.extend(entry[0] for entry in rec["entries"].values())
        return seen

    def sweep(self, keep):
        """Deletes the records not in keep, and every blob no remaining record names."""
        for ino in [ino for ino in self.records if ino not in keep]:
            del self.records[ino]
            os.unlink(self._record_path(ino))
        named = {f"{ino}.{rec['blob']}" for ino, rec in self.records.items() if rec["kind"] == "f"}
        for name in os.listdir(self.blob_dir):
            if name not in named:
                os.unlink(os.path.join(self.blob_dir, name))


class PowerLossFS:
    """The fusepy operations (raw_fi: file handles are the fuse_file_info structures)."""

    use_ns = True  # times as integer nanoseconds
    flag_nullpath_ok = 1  # read/write/fsync of an open file libfuse has no path for: path None
    flag_utime_omit_ok = 1  # utimens gets UTIME_NOW/UTIME_OMIT as they are

    def __init__(self, store, fail_fsync=(), fail_fsyncdir=()):
        self.store = store
        self.fail_fsync = list(fail_fsync)
        self.fail_fsyncdir = list(fail_fsyncdir)
        self.handles = {}
        self.next_fh = 1
        self.garbage = 0
        self.counters = collections.Counter(fsync=0, fsyncdir=0, fsync_eio=0, fsyncdir_eio=0)
        self.counters_fd = os.open(os.path.join(store.folder, "counters.json"),
                                   os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        self.root = self._rebuild()
        self.next_ino = store.max_ino() + 1
        self._collect_garbage()

    def __call__(self, op, *args):
        return getattr(self, op)(*args)

    # --- the durable image -> the volatile tree ---

    def _rebuild(self):
        """The tree the durable image holds, walked breadth first from the root."""
        records = self.store.records
        now = time.time_ns()
        root_rec = records.get(ROOT_INO)
        root_meta = root_rec["meta"] if root_rec else [stat.S_IFDIR | 0o755, 0, 0, now, now]
        root = Node(ROOT_INO, root_meta)
        root.nlink = 1
        placed = {ROOT_INO: root}
        queue = collections.deque([root])
        while queue:
            folder = queue.popleft()
            rec = records.get(folder.ino)
            if rec is None:
                continue  # a folder whose own entries were never synced: empty
            for name in sorted(rec["entries"]):
                ino, kind, meta = rec["entries"][name]
                node = placed.get(ino)
                if node is None:
                    own = records.get(ino)
                    if own is not None and own["seq"] > rec["seq"]:
                        meta = own["meta"]
                    node = placed[ino] = Node(ino, meta)
                    if kind == "d":
                        queue.append(node)
                    elif own is not None:
                        node.data, node.size = None, own["size"]
                elif node.is_dir:
                    continue  # a folder named durably in two places comes back once
                node.nlink += 1
                folder.children[name] = node
        return root

    def image_summary(self):
        nodes = {}
        stack = [self.root]
        while stack:
            node = stack.pop()
            nodes[node.ino] = node
            if node.is_dir:
                stack.extend(node.children.values())
        files = [n for n in nodes.values() if not n.is_dir]
        return (f"{len(nodes) - len(files) - 1} dirs, {len(files)} files, "
                f"{sum(n.size for n in files)} bytes")

    def _collect_garbage(self):
        """Drops the records that neither the durable image nor the live tree can reach."""
        live, stack = set(), [self.root]
        while stack:
            node = stack.pop()
            live.add(node.ino)
            if node.is_dir:
                stack.extend(node.children.values())
                stack.extend(node.hidden.values())
        live.update(h.node.ino for h in self.handles.values())
        self.store.sweep(self.store.closure(live | {ROOT_INO}))
        self.garbage = 0

    def _note_garbage(self, ino):
        rec = self.store.records.get(ino)
        if rec is not None:
            self.garbage += BLOCK + rec.get("size", 0)
            if self.garbage > GC_THRESHOLD:
                self._collect_garbage()

    def sync_everything(self):
        """What a clean unmount does: every folder and file of the tree becomes durable."""
        seen, stack = set(), [self.root]
        while stack:
            node = stack.pop()
            if node.ino in seen:
                continue
            seen.add(node.ino)
            if node.is_dir:
                self.store.put_dir(node)
                stack.extend(node.children.values())
            else:
                self.store.put_file(node)

    def save_counters(self):
        """Rewrites counters.json in place (a replace per fsync would double its cost)."""
        text = json.dumps(dict(self.counters, store_bytes=self.store.bytes_written))
        os.pwrite(self.counters_fd, text.ljust(COUNTERS_WIDTH).encode(), 0)

    # --- helpers ---

    def _lookup(self, path):
        node = self.root
        for part in path.split("/"):
            if part:
                if not node.is_dir:
                    raise FuseOSError(errno.ENOTDIR)
                node = node.children.get(part) or node.hidden.get(part)
                if node is None:
                    raise FuseOSError(errno.ENOENT)
        return node

    def _parent(self, path):
        head, name = path.rsplit("/", 1)
        parent = self._lookup(head)
        if not parent.is_dir:
            raise FuseOSError(errno.ENOTDIR)
        return parent, name

    def _new_node(self, mode):
        uid, gid, _ = fuse_get_context()
        now = time.time_ns()
        node = Node(self.next_ino, [mode, uid, gid, now, now])
        self.next_ino += 1
        return node

    def _add_name(self, parent, name, node):
        parent.children[name] = node
        node.nlink += 1
        parent.mtime = parent.ctime = time.time_ns()

    def _remove_name(self, parent, name):
        node = parent.children.pop(name)
        node.nlink -= 1
        node.ctime = parent.mtime = parent.ctime = time.time_ns()
        if node.nlink == 0:
            self._note_garbage(node.ino)

    def _open_handle(self, node, flags):
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = Handle(node, bool(flags & os.O_APPEND))
        return fh

    def _load(self, node):
        """Brings a file's durable bytes into memory before its first change."""
        if node.data is None:
            node.data = bytearray(self.store.read_blob(node.ino, 0, node.size))

    def _changed(self, node, offset):
        node.dirty_from = offset if node.dirty_from is None else min(node.dirty_from, offset)
        node.mtime = node.ctime = time.time_ns()

    def _resize(self, node, length):
        if node.is_dir:
            raise FuseOSError(errno.EISDIR)
        if node.data is None and length <= node.size:  # read only the bytes that stay
            node.data = bytearray(self.store.read_blob(node.ino, 0, length))
        self._load(node)
        if length < len(node.data):
            del node.data[length:]
        else:
            node.data.extend(bytes(length - len(node.data)))
        self._changed(node, min(length, node.size))
        node.size = length

    def _check_injection(self, globs, path, counter):
        if path is not None and any(fnmatch.fnmatchcase(path, g) for g in globs):
            self.counters[counter] += 1
            self.save_counters()
            raise FuseOSError(errno.EIO)

    # --- FUSE operations ---

    def getattr(self, path, fi=None):
        node = self.handles[fi.fh].node if fi else self._lookup(path)
        size = node.size if not node.is_dir else BLOCK
        return {"st_ino": node.ino, "st_mode": node.mode, "st_nlink": node.nlink,
                "st_uid": node.uid, "st_gid": node.gid, "st_size": size,
                "st_blocks": (size + 511) // 512, "st_blksize": 128 * 1024,
                "st_atime": node.atime, "st_mtime": node.mtime, "st_ctime": node.ctime}

    def access(self, path, amode):
        self._lookup(path)  # root may do anything to what exists
        return 0

    def statfs(self, path):
        blocks = FREE_BYTES // BLOCK
        return {"f_bsize": BLOCK, "f_frsize": BLOCK, "f_blocks": blocks, "f_bfree": blocks,
                "f_bavail": blocks, "f_files": 10**7, "f_ffree": 10**7, "f_favail": 10**7,
                "f_namemax": 255}

    def create(self, path, mode, fi):
        parent, name = self._parent(path)
        node = parent.children.get(name)
        if node is None:
            node = self._new_node(stat.S_IFREG | (mode & 0o7777))
            self._add_name(parent, name, node)
        elif fi.flags & os.O_EXCL:
            raise FuseOSError(errno.EEXIST)
        elif node.is_dir:
            raise FuseOSError(errno.EISDIR)
        elif fi.flags & os.O_TRUNC:
            self._resize(node, 0)
        fi.fh = self._open_handle(node, fi.flags)

    def open(self, path, fi):
        node = self._lookup(path)
        if fi.flags & os.O_TRUNC:  # sent here because of -o atomic_o_trunc
            self._resize(node, 0)
        fi.fh = self._open_handle(node, fi.flags)

    def read(self, path, size, offset, fi):
        node = self.handles[fi.fh].node
        if node.data is None:
            return self.store.read_blob(node.ino, offset, size)
        return bytes(node.data[offset:offset + size])

    def write(self, path, data, offset, fi):
        handle = self.handles[fi.fh]
        node = handle.node
        if handle.append:
            offset = node.size
        self._load(node)
        if offset > node.size:
            node.data.extend(bytes(offset - node.size))  # a hole reads as zeros
        node.data[offset:offset + len(data)] = data
        self._changed(node, min(offset, node.size))
        node.size = len(node.data)
        return len(data)

    def truncate(self, path, length, fi=None):
        self._resize(self.handles[fi.fh].node if fi else self._lookup(path), length)

    def release(self, path, fi):
        del self.handles[fi.fh]

    def fsync(self, path, datasync, fi):
        handle = self.handles[fi.fh]
        self.counters["fsync"] += 1
        self._check_injection(self.fail_fsync, path, "fsync_eio")
        self.store.put_file(handle.node)
        self.save_counters()

    def opendir(self, path):
        node = self._lookup(path)
        if not node.is_dir:
            raise FuseOSError(errno.ENOTDIR)
        return self._open_handle(node, 0)

    def readdir(self, path, fh):
        node = self.handles[fh].node
        return [".", ".."] + [(name, {"st_ino": child.ino, "st_mode": child.mode}, 0)
                              for name, child in node.children.items()]

    def releasedir(self, path, fh):
        del self.handles[fh]

    def fsyncdir(self, path, datasync, fh):
        handle = self.handles[fh]
        self.counters["fsyncdir"] += 1
        self._check_injection(self.fail_fsyncdir, path, "fsyncdir_eio")
        old = self.store.put_dir(handle.node)
        if old is not None:
            for name, (ino, _, _) in old["entries"].items():
                if name not in handle.node.children or handle.node.children[name].ino != ino:
                    self._note_garbage(ino)
        self.save_counters()

    def mkdir(self, path, mode):
        parent, name = self._parent(path)
        if name in parent.children:
            raise FuseOSError(errno.EEXIST)
        self._add_name(parent, name, self._new_node(stat.S_IFDIR | (mode & 0o7777)))

    def unlink(self, path):
        parent, name = self._parent(path)
        if name in parent.hidden:  # the last handle of a hidden file was closed
            del parent.hidden[name]
            return
        node = parent.children.get(name)
        if node is None:
            raise FuseOSError(errno.ENOENT)
        if node.is_dir:
            raise FuseOSError(errno.EISDIR)
        self._remove_name(parent, name)

    def rmdir(self, path):
        parent, name = self._parent(path)
        node = parent.children.get(name)
        if node is None:
            raise FuseOSError(errno.ENOENT)
        if not node.is_dir:
            raise FuseOSError(errno.ENOTDIR)
        if node.children:
            raise FuseOSError(errno.ENOTEMPTY)
        self._remove_name(parent, name)

    def rename(self, old, new):
        source_parent, source_name = self._parent(old)
        node = source_parent.children.get(source_name)
        if node is None:
            raise FuseOSError(errno.ENOENT)
        target_parent, target_name = self._parent(new)
        if target_name.startswith(HIDDEN_PREFIX):  # libfuse hiding an open file: an unlink
            self._remove_name(source_parent, source_name)
            target_parent.hidden[target_name] = node
            return
        target = target_parent.children.get(target_name)
        if target is node:
            return  # two names of one inode: POSIX says do nothing
        if target is not None:
            if node.is_dir and not target.is_dir:
                raise FuseOSError(errno.ENOTDIR)
            if target.is_dir and not node.is_dir:
                raise FuseOSError(errno.EISDIR)
            if target.is_dir and target.children:
                raise FuseOSError(errno.ENOTEMPTY)
            self._remove_name(target_parent, target_name)
        del source_parent.children[source_name]
        target_parent.children[target_name] = node
        node.ctime = source_parent.mtime = source_parent.ctime = time.time_ns()
        target_parent.mtime = target_parent.ctime = node.ctime

    def chmod(self, path, mode):
        node = self._lookup(path)
        node.mode = (node.mode & ~0o7777) | (mode & 0o7777)
        node.ctime = time.time_ns()

    def chown(self, path, uid, gid):
        node = self._lookup(path)
        if uid not in (-1, 0xFFFFFFFF):
            node.uid = uid
        if gid not in (-1, 0xFFFFFFFF):
            node.gid = gid
        node.ctime = time.time_ns()

    def utimens(self, path, times=None):
        node = self._lookup(path)
        now = time.time_ns()
        atime, mtime = times or (now, now)
        if atime != UTIME_OMIT:
            node.atime = now if atime == UTIME_NOW else atime
        if mtime != UTIME_OMIT:
            node.mtime = now if mtime == UTIME_NOW else mtime
        node.ctime = now

    def destroy(self, path):
        self.sync_everything()
        self.save_counters()
        print(f"powerloss_fs: unmounted cleanly, everything synced; "
              f"{json.dumps(dict(self.counters))}", flush=True)


def announce_when_mounted(mountpoint, device_before):
    """Prints the line a harness waits for, once the mount answers on mountpoint."""
    while True:
        try:
            if os.path.ismount(mountpoint) and os.stat(mountpoint).st_dev != device_before:
                break
        except OSError:
            pass
        time.sleep(0.01)
    print(f"powerloss_fs: mounted {mountpoint}", flush=True)


def lock_state(folder):
    """Holds an flock on the state folder; a killed instance's lock goes with it."""
    fd = os.open(os.path.join(folder, "lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    deadline = time.monotonic() + 5
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                sys.exit(f"powerloss_fs: {folder} is in use by another instance")
            time.sleep(0.05)


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="powerloss_fs.py",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
A FUSE file system that models a power cut (stricter than LazyFS: names are volatile too).
  fsync(file)   makes the file's data, size and mode durable;
  fsync(folder) makes the folder's entries (name -> inode) durable;
  nothing else is: after a cut a file exists only if its folder was fsynced since it got
  its name, with the data of its last fsync (empty if none).
Power cut: SIGKILL the program under test, SIGKILL this process, `fusermount -u -z MNT`,
start this again with the same --state. Clean unmount (`fusermount -u MNT`, SIGTERM,
Ctrl-C): everything is synced first, like umount(8).
Prints 'powerloss_fs: mounted MNT' once the mount is live; fsync counts are kept in
STATE/counters.json.""")
    parser.add_argument("mountpoint", help="an existing empty folder")
    parser.add_argument("--state", required=True, metavar="DIR",
                        help="backing folder of the durable image (missing or empty: empty FS)")
    parser.add_argument("--fail-fsync", action="append", default=[], metavar="GLOB",
                        help="fsync of a file whose path in the FS matches GLOB fails with EIO "
                             "(fnmatch: '*' also matches '/'); repeatable")
    parser.add_argument("--fail-fsyncdir", action="append", default=[], metavar="GLOB",
                        help="the same for fsync of a folder, e.g. '/spool' or '*'")
    parser.add_argument("--debug", action="store_true", help="log every FUSE request (libfuse -d)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="powerloss_fs: %(message)s")
    mountpoint = os.path.abspath(args.mountpoint)
    try:
        device_before = os.stat(mountpoint).st_dev
    except OSError as e:
        stale = e.errno == errno.ENOTCONN
        hint = " (its FS process was killed: fusermount -u -z it)" if stale else ""
        sys.exit(f"powerloss_fs: {mountpoint}: {e.strerror}{hint}")
    if os.path.ismount(mountpoint):
        sys.exit(f"powerloss_fs: {mountpoint} is already a mount point")
    os.makedirs(args.state, exist_ok=True)
    lock_state(args.state)

    fs = PowerLossFS(DurableStore(args.state), args.fail_fsync, args.fail_fsyncdir)
    fs.save_counters()
    print(f"powerloss_fs: durable image in {args.state}: {fs.image_summary()}", flush=True)
    threading.Thread(target=announce_when_mounted, args=(mountpoint, device_before),
                     daemon=True).start()
    FUSE(fs, mountpoint, raw_fi=True, foreground=True, nothreads=True, debug=args.debug,
         fsname="powerloss_fs", subtype="powerloss_fs",
         attr_timeout=0, entry_timeout=0, negative_timeout=0,  # the kernel caches no names
         use_ino=True, big_writes=True, max_write=128 * 1024, atomic_o_trunc=True,
         no_remote_lock=True)  # flock/fcntl locks handled by the kernel


if __name__ == "__main__":
    main()
