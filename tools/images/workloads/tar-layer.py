#!/usr/bin/env python3
"""Writes one OCI image layer (an uncompressed tar) from a layer tree built by build-layer.sh.

    tar-layer.py <tree> <out.tar> <epoch>

The archive depends only on the tree's names, contents, modes, numeric owners, link targets and
capabilities: entries in byte order, every mtime clamped to <epoch>, no user or group names, pax
format. overlayfs's markers become OCI whiteouts: a 0/0 character device `d/x` is written as the
empty file `d/.wh.x`, a directory marked opaque gets `d/.wh..wh..opq`. Hard links inside the tree
stay hard links. Prints the tar's size in bytes.
"""

import os
import stat
import sys
import tarfile

OPAQUE_XATTR = 'trusted.overlay.opaque'
# xattrs worth carrying into the image; overlayfs's own are build-time bookkeeping
KEPT_XATTRS = ('security.capability',)


def xattrs(path):
    found = {}
    for name in KEPT_XATTRS:
        try:
            value = os.getxattr(path, name, follow_symlinks=False)
        except OSError:
            continue
        found[f'SCHILY.xattr.{name}'] = value.decode('latin-1')
    return found


def is_opaque(path):
    try:
        return os.getxattr(path, OPAQUE_XATTR, follow_symlinks=False) == b'y'
    except OSError:
        return False


def walk(root, rel=''):
    """Relative paths under root in byte order, each directory followed by its contents."""
    for name in sorted(os.listdir(os.path.join(root, rel) if rel else root), key=os.fsencode):
        child = f'{rel}/{name}' if rel else name
        yield child
        if stat.S_ISDIR(os.lstat(os.path.join(root, child)).st_mode):
            yield from walk(root, child)


def entry(name, st, epoch, **fields):
    info = tarfile.TarInfo(name)
    info.mode = stat.S_IMODE(st.st_mode)
    info.uid, info.gid = st.st_uid, st.st_gid
    info.uname = info.gname = ''
    info.mtime = min(int(st.st_mtime), epoch)
    for key, value in fields.items():
        setattr(info, key, value)
    return info


def main():
    tree, out, epoch = sys.argv[1], sys.argv[2], int(sys.argv[3])
    first_path_of_inode = {}
    with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as tar:
        for rel in walk(tree):
            path = os.path.join(tree, rel)
            st = os.lstat(path)
            mode = st.st_mode
            if stat.S_ISCHR(mode) and st.st_rdev == 0:
                parent, base = os.path.split(rel)
                whiteout = os.path.join(parent, f'.wh.{base}')
                tar.addfile(entry(whiteout, st, epoch, mode=0o644, uid=0, gid=0))
                continue
            pax = xattrs(path)
            if stat.S_ISDIR(mode):
                tar.addfile(entry(rel, st, epoch, type=tarfile.DIRTYPE, pax_headers=pax))
                if is_opaque(path):
                    tar.addfile(entry(f'{rel}/.wh..wh..opq', st, epoch, mode=0o644, type=tarfile.REGTYPE))
            elif stat.S_ISLNK(mode):
                tar.addfile(entry(rel, st, epoch, type=tarfile.SYMTYPE, linkname=os.readlink(path)))
            elif stat.S_ISREG(mode):
                key = (st.st_dev, st.st_ino)
                if st.st_nlink > 1 and key in first_path_of_inode:
                    tar.addfile(
                        entry(rel, st, epoch, type=tarfile.LNKTYPE, linkname=first_path_of_inode[key], size=0)
                    )
                    continue
                first_path_of_inode[key] = rel
                with open(path, 'rb') as f:
                    tar.addfile(entry(rel, st, epoch, size=st.st_size, pax_headers=pax), f)
            elif stat.S_ISFIFO(mode):
                tar.addfile(entry(rel, st, epoch, type=tarfile.FIFOTYPE))
            elif stat.S_ISSOCK(mode):
                continue
            else:
                sys.exit(f'tar-layer.py: {rel}: device nodes do not belong in a layer')
    print(os.path.getsize(out))


if __name__ == '__main__':
    main()
