#!/usr/bin/env python3
"""A camera-like FTP client: uploads photos the way a camera's built-in FTP transfer does, one
control session, binary type, the folder tree built with MKD/CWD, one data connection per file,
passive or active (Canon bodies upload in active mode unless "Passive mode" is switched on).

What the sequence rests on: the camera menus expose exactly these choices (server, port,
passive on/off, user, password, target folder, "create folders like the camera's"), and
every one of them maps to one RFC 959 step: USER/PASS, TYPE I, CWD/MKD per folder level,
PASV or PORT, STOR per file, QUIT at the end (Canon EOS R5 and R3 "Wireless Function"
instruction manuals, FTP transfer settings; Nikon Z 9 "Network Guide", FTP server
settings; Sony Alpha 1 help guide, "FTP Transfer Func."; for Canon's FTP, FTPS and SFTP and
the camera as the active-mode client, sandon.it, "Setting up FTP behind NAT for Canon cameras
uploads", 2024). No packet capture of a body was
available here: the order of the steps is the one those settings imply and every FTP server
(vsftpd, ShutterSnitch, FileZilla Server) must accept.

    ftp_camera.py --port 2121 --user alice --password-env RELAY_FTP_PASSWORD [--active]
                  [--folder /DCIM/100CANON] [--rate BYTES_PER_S] [--die-after BYTES] [--resume] FILE...

--die-after ends this process abruptly (os._exit) after that many bytes of the first file, as a
camera switched off mid-upload; --resume asks SIZE first and sends the rest with REST, as a
camera does after a dropped connection. Prints one line per file: NAME CODE SECONDS, where
SECONDS is from the first byte sent to the server's final answer.
"""

import argparse
import ftplib
import os
import sys
import time


def build_folders(ftp, folder):
    ftp.cwd("/")
    for part in [p for p in folder.split("/") if p]:
        try:
            ftp.mkd(part)
        except ftplib.error_perm:
            pass  # already there: cameras ignore the answer and change into it
        ftp.cwd(part)


def send(ftp, path, rate, die_after, resume):
    name = os.path.basename(path)
    offset = 0
    if resume:
        try:
            offset = ftp.size(name) or 0
        except ftplib.error_perm:
            offset = 0
    with open(path, "rb") as source:
        source.seek(offset)
        started = time.monotonic()
        try:
            conn = ftp.transfercmd("STOR " + name, rest=offset or None)
        except (ftplib.error_temp, ftplib.error_perm) as error:
            return name, str(error)[:3], time.monotonic() - started  # refused before any byte (452: retry later)
        sent = 0
        while True:
            block = source.read(64 * 1024)
            if not block:
                break
            if die_after is not None and sent + len(block) >= die_after:
                conn.sendall(block[: max(0, die_after - sent)])
                os._exit(3)
            conn.sendall(block)
            sent += len(block)
            if rate:
                ahead = sent / rate - (time.monotonic() - started)
                if ahead > 0:
                    time.sleep(ahead)
        conn.close()
        try:
            answer = ftp.voidresp()
        except ftplib.Error as error:
            answer = str(error)
        return name, answer.split(" ", 1)[0], time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2121)
    parser.add_argument("--bind", default=None, help="the local address to connect from (one per camera, e.g. 127.0.0.5)")
    parser.add_argument("--user", required=True)
    parser.add_argument("--password-env", default="RELAY_FTP_PASSWORD")
    parser.add_argument("--active", action="store_true", help="PORT instead of PASV (Canon's default)")
    parser.add_argument("--folder", default="/")
    parser.add_argument("--rate", type=float, default=0, help="bytes per second, 0 for unshaped")
    parser.add_argument("--die-after", type=int)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--interval", type=float, default=0, help="seconds between files (shots)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    ftp = ftplib.FTP()
    ftp.connect(args.host, args.port, timeout=60, source_address=(args.bind, 0) if args.bind else None)
    ftp.login(args.user, os.environ.get(args.password_env, ""))
    ftp.voidcmd("TYPE I")
    ftp.set_pasv(not args.active)
    build_folders(ftp, args.folder)
    for index, path in enumerate(args.files):
        if index and args.interval:
            time.sleep(args.interval)
        name, code, seconds = send(ftp, path, args.rate, args.die_after if index == 0 else None, args.resume)
        print(f"{name} {code} {seconds:.3f}", flush=True)
    ftp.quit()


if __name__ == "__main__":
    sys.exit(main())
