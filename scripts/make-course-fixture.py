#!/usr/bin/env python3
"""Make the course fixture that upgrade tests open with every later build.

    scripts/make-course-fixture.py tests/fixtures/course-v0.1.0

A release runs this once, with its own `arena` (target/debug/arena, or the
ARENA environment variable), and commits the folder: a course of four
students with accepted, rejected and chosen versions, a ladder that played
until it rested, then stopped cleanly. Beside the course it writes
`expected.json`: what that release's server answered for each student
(versions, states, points, the version that counts, ladder rating and
games) and the teacher's link, read from its own API. Later builds must
open the folder (migrating it after a backup) and answer the same
(tests/backup.rs `a_course_made_by_an_earlier_release_opens_with_everything_in_it`).
"""

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARENA = os.environ.get("ARENA", str(ROOT / "target/debug/arena"))
BOTS = ROOT / "example-bots/wasm/en-garde"
# Short ladder matches that rest after a few dozen: the fixture stays small.
LADDER = """
[ladder]
games = 4
table = 4
versus_games = 0
versus_elo = 20.0
verify_percent = 2
verify_first = 5
lease_seconds = 60
min_matches = 6
rest_width = 1000.0
max_matches = 12
"""


def call(url, token=None, data=None, headers=None):
    """One API call; the JSON it answers and its status."""
    req = urllib.request.Request(url, data=data, headers=headers or {})
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-course-fixture.py OUT (a folder that does not exist)")
    out = Path(sys.argv[1])
    if out.exists():
        sys.exit(f"{out}: already exists; remove it first")
    out.mkdir(parents=True)
    course = out / "course"
    roster = out / "roster.csv"
    roster.write_text(
        "name,email,id\nAnn Lee,ann@uni.edu,s1\nBo Wu,bo@uni.edu,s2\n"
        "Cy Ode,cy@uni.edu,s3\nDee Bug,dee@uni.edu,s4\n"
    )
    subprocess.run(
        [ARENA, "course", "init", course, "--game", "en-garde", "--roster", roster],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    roster.unlink()
    toml = course / "course.toml"
    text = toml.read_text()
    toml.write_text(text[: text.index("[ladder]")] + LADDER.lstrip() + text[text.index("[rates]") - 1 :])
    tokens = {}
    for line in (course / "tokens.csv").read_text().splitlines()[1:]:
        cols = line.split(",")
        tokens[cols[0]] = cols[3]

    server = subprocess.Popen(
        [ARENA, "serve", course, "--listen", "127.0.0.1:0", "--workers", "1"],
        stderr=subprocess.PIPE,
        text=True,
    )
    url = None
    for line in server.stderr:
        if line.startswith("serving "):
            url = line.split(" at ")[1].split()[0]
            break
    assert url, "the server did not start"

    def submit(student, path):
        status, v = call(
            f"{url}/api/submissions",
            tokens[student],
            data=Path(path).read_bytes(),
            headers={"X-File-Name": Path(path).name},
        )
        assert status == 202, v
        while True:
            status, v2 = call(f"{url}/api/submissions/{v['version']}", tokens[student])
            if v2.get("state") not in ("queued", "checking", "grading", "running"):
                return v2
            time.sleep(0.5)

    submit("s1", BOTS / "aggressive.wasm")
    submit("s2", BOTS / "cowardly.wasm")
    submit("s3", BOTS / "random.wasm")
    submit("s4", ROOT / "tests/fixtures/v0.1.0/hostile-panic.wasm")
    submit("s1", BOTS / "random.wasm")
    # The ladder plays until every version has its matches, then rests:
    # nothing queued or running, and no new match for 10 s.
    def count(sql):
        db = sqlite3.connect(course / "course.db")
        try:
            return db.execute(sql).fetchone()[0]
        finally:
            db.close()

    seen = (-1, 0)
    while True:
        time.sleep(10)
        now = (count("SELECT COUNT(*) FROM ladder_matches"), count("SELECT COUNT(*) FROM ladder_matches WHERE state <> 'done'"))
        if now[0] > 0 and now[1] == 0 and now[0] == seen[0]:
            break
        seen = now

    expected = {"teacher_link": (course / "teacher-link.txt").read_text().strip(), "students": {}}
    for student, token in sorted(tokens.items()):
        _, c = call(f"{url}/api/course", token)
        versions = []
        n = 1
        while True:
            status, v = call(f"{url}/api/submissions/{n}", token)
            if status != 200:
                break
            versions.append({k: v.get(k) for k in ("version", "state", "accepted", "score", "sha256")})
            n += 1
        expected["students"][student] = {"token": token, "course": c.get("course"), "versions": versions}
    _, board = call(f"{url}/api/leaderboard", tokens["s1"])
    expected["board"] = [
        {k: row.get(k) for k in ("key", "name", "games", "wins", "draws", "losses", "rating")} for row in board.get("rows", [])
    ]
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    db = sqlite3.connect(course / "course.db")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute("VACUUM")
    db.close()
    for extra in ("course.db-wal", "course.db-shm"):
        (course / extra).unlink(missing_ok=True)
    # Compiled bots are this build's cache, refused by another wasmtime anyway.
    for scratch in ("exports", "cache"):
        shutil.rmtree(course / scratch, ignore_errors=True)
    (out / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{out}: a course of {len(tokens)} students, {sum(len(s['versions']) for s in expected['students'].values())} versions")


main()
