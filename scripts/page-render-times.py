#!/usr/bin/env python3
"""How long the server took for each web page in a server log: p50, p95 and the slowest, overall
and per page (ids folded), from the `ms=` every request line carries.

    python3 scripts/page-render-times.py artifacts/browser-server.log

The browser tests (`Tests/browser/run.sh`) write that log: every page at 390 and 1280 px in both
themes, signed in and out, so it covers every page the web app has. Only HTML pages answered
200 count (not the shell's files, photos, the API or redirects).
"""
import re
import sys

LINE = re.compile(r"ms=([\d.]+) .*status=200 \[PawpackServer\] GET (\S+)")
NOT_PAGES = re.compile(r"^/(v1/|media/|dev/|healthz)|\.(css|js|png|svg|webmanifest)$")
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main(path):
    pages = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        match = LINE.search(line)
        if not match or NOT_PAGES.search(match.group(2).split("?")[0]):
            continue
        page = ID.sub(":id", match.group(2).split("?")[0])
        pages.setdefault(page, []).append(float(match.group(1)))
    every = [ms for times in pages.values() for ms in times]
    if not every:
        sys.exit("no page lines in " + path)
    print(f"{len(every)} page renders of {len(pages)} pages: p50 {percentile(every, .5):.1f} ms, "
          f"p95 {percentile(every, .95):.1f} ms, slowest {max(every):.1f} ms")
    for page, times in sorted(pages.items(), key=lambda item: -max(item[1])):
        print(f"  {page:40} {len(times):3}x  p50 {percentile(times, .5):6.1f}  max {max(times):6.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "artifacts/browser-server.log")
