#!/usr/bin/env python3
"""Drive a terminal program from a key script, for scripted demos.

    drive.py KEYS -- PROGRAM [ARGS...]

Runs PROGRAM in a pseudo-terminal the size of this one, copies everything it
prints to this terminal, and types the keys of the KEYS file at its times.
Run it under `asciinema rec -c` (see record.sh) and the recording is the
program's screen as a person would see it.

A KEYS file has one step per line: a delay in seconds, then what to type.
`<Enter>`, `<Esc>`, `<Tab>`, `<BackTab>`, `<Space>`, `<Up>`, `<Down>`,
`<Left>`, `<Right>`, `<Backspace>` and `<C-c>` name special keys; anything else is
typed as text, one character every 60 ms. Lines starting with `#` are
comments; a line `= NAME` names the point of the tour it stands at (the
replay test, tests/it/demo_recording.rs, checks the screen there) and
types nothing. A line `cd DIR` waits for PROGRAM to exit and starts it
again in DIR (relative to the folder drive.py was started in): the tour's
next part, in another folder (a project, say).
"""

import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

KEYS = {
    "Enter": "\r",
    "Esc": "\x1b",
    "Tab": "\t",
    "BackTab": "\x1b[Z",
    "Space": " ",
    "Up": "\x1b[A",
    "Down": "\x1b[B",
    "Right": "\x1b[C",
    "Left": "\x1b[D",
    "Backspace": "\x7f",
    "C-c": "\x03",
}
TYPING_DELAY = 0.06


def parse(path):
    """The tour's parts: [(folder or None, [(delay, keys)])]."""
    parts = [(None, [])]
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("="):
                continue
            if line.startswith("cd "):
                parts.append((line[3:].strip(), []))
                continue
            steps = parts[-1][1]
            delay, _, keys = line.partition(" ")
            try:
                steps.append((float(delay), keys.strip()))
            except ValueError:
                sys.exit(f"{path}:{number}: a step starts with a delay in seconds")
    return parts


def chunks(keys):
    """Splits `a<Enter>b` into typed pieces: ['a', '\\r', 'b']."""
    out = []
    for piece in re.split(r"(<[A-Za-z-]+>)", keys):
        if piece.startswith("<") and piece.endswith(">") and piece[1:-1] in KEYS:
            out.append(KEYS[piece[1:-1]])
        else:
            out.extend(piece)
    return [c for c in out if c]


def window_size():
    try:
        return struct.unpack("HHHH", fcntl.ioctl(sys.stdout.fileno(), termios.TIOCGWINSZ, b"\0" * 8))[:2]
    except OSError:
        return (30, 100)


CURSOR_QUERY = b"\x1b[6n"


def pump(master, until):
    """Copies the program's output to stdout until `until` (a monotonic time),
    answering its cursor-position queries as a terminal would."""
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return True
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                return False
            if not data:
                return False
            if CURSOR_QUERY in data:
                os.write(master, b"\x1b[1;1R")
                data = data.replace(CURSOR_QUERY, b"")
            os.write(sys.stdout.fileno(), data)


def run(program, steps, size):
    """Runs `program` in a pseudo-terminal of `size`, types `steps`, and
    returns its exit code once it ends (killed 5 s after the last key)."""
    rows, cols = size
    pid, master = pty.fork()
    if pid == 0:
        os.execvp(program[0], program)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    alive = True
    for delay, keys in steps:
        alive = pump(master, time.monotonic() + delay)
        if not alive:
            break
        for key in chunks(keys):
            os.write(master, key.encode())
            alive = pump(master, time.monotonic() + TYPING_DELAY)
            if not alive:
                break
    deadline = time.monotonic() + 5
    while alive and time.monotonic() < deadline:
        alive = pump(master, time.monotonic() + 0.2)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    else:
        if alive:
            os.kill(pid, 9)
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        status = 0
    os.close(master)
    return os.waitstatus_to_exitcode(status) if status else 0


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    parts = parse(sys.argv[1])
    size = window_size()
    start = os.getcwd()
    code = 0
    for folder, steps in parts:
        os.chdir(os.path.join(start, folder) if folder else start)
        code = run(sys.argv[3:], steps, size)
        if code != 0:
            break
    sys.exit(code)


if __name__ == "__main__":
    main()
