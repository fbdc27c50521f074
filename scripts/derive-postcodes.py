#!/usr/bin/env python3
"""Derives Pawpack's bundled postcodes from GeoNames' postal code data.

    pip install geotz==0.0.2b0 && python3 scripts/derive-postcodes.py

Writes Sources/PawpackServer/Resources/postcodes.tsv: the postcodes of the 100 countries and
territories GeoNames covers, each with the place it names and its centre (440,563 areas, 18 MB).
Codes longer than five characters whose run lies within 3 km of its centre (Portugal's and
Japan's seven digits, for instance) are kept once under their shared beginning, written with an
ellipsis: "10…" stands for Lisbon's 1000-001 to 1999-999, which GeoNames places at one point.
Pawpack stores only the centre of a 500 m cell and compares distances in kilometres, so nothing
a member sees changes, and the file holds 440,000 lines instead of 1.5 million. Coordinates keep
three decimals.

The data is GeoNames' (https://www.geonames.org), licensed under CC BY 4.0, as packaged by the
geotz project (MIT), whose wheel carries GeoNames' allCountries postal code file. The file says
so in its first lines, and the pages that search it show the attribution.
"""
import collections
import importlib.util
import math
import pathlib

OUT = pathlib.Path(__file__).resolve().parent.parent / "Sources/PawpackServer/Resources/postcodes.tsv"
# Found without importing geotz, which would want its time zone library too.
SOURCE = pathlib.Path(importlib.util.find_spec("geotz").origin).parent / "data/geonames_all_countries_sorted.tsv"
RADIUS_KM = 3.0
# Codes of five characters or fewer are always kept whole: people type them whole.
SHORTEST_KEPT_WHOLE = 5
LONGEST_CODE = 12  # PostcodeAreas.longestCode
# Where GeoNames holds only the beginning of the postcodes people write (the United Kingdom's
# outward code "SW1A" of "SW1A 1AA", Canada's "K1A" of "K1A 0B1", the Netherlands' "1012" of
# "1012 AB"...), each code is written with an ellipsis so that a whole postcode typed finds it.
BEGINNINGS = {"CA", "GB", "GG", "IE", "IM", "JE", "MT", "NL"}


def clean(text):
    text = " ".join(str(text).replace("\t", " ").split())
    # Some countries' names come in capitals only ("BOULOGNE"); they read better as names.
    return text.title() if text.isupper() and len(text) > 3 else text


def normalized(code):
    return "".join(ch for ch in code.upper() if ch.isascii() and ch.isalnum())


def km(a, b):
    lat1, lon1, lat2, lon2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    return 6371 * math.hypot((lon2 - lon1) * math.cos((lat1 + lat2) / 2), lat2 - lat1)


def written_prefix(code, length):
    """The beginning of `code` as written that holds `length` letters and digits."""
    seen = 0
    for index, ch in enumerate(code):
        if ch.isascii() and ch.isalnum():
            seen += 1
            if seen == length:
                return code[: index + 1]
    return code


def areas(rows):
    """One area per postcode, or per beginning shared by postcodes within RADIUS_KM."""
    by_code = collections.defaultdict(list)
    for code, written, name, latitude, longitude in rows:
        by_code[code].append((written, name, latitude, longitude))

    def summary(prefix, codes, whole):
        points = [(lat, lon) for code in codes for (_, _, lat, lon) in by_code[code]]
        centre = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))
        names = collections.Counter(name for code in codes for (_, name, _, _) in by_code[code])
        name = min(names, key=lambda n: (-names[n], len(n), n))
        first = by_code[codes[0]][0][0]
        written = first if whole else written_prefix(first, len(prefix)) + "…"
        return prefix, written, name, centre, points

    out = []

    def visit(prefix, codes):
        if len(codes) == 1:
            out.append(summary(codes[0], codes, whole=True)[:4])
            return
        if len(prefix) >= 2 and all(len(code) > SHORTEST_KEPT_WHOLE for code in codes):
            found = summary(prefix, codes, whole=False)
            if all(km(found[3], point) <= RADIUS_KM for point in found[4]):
                out.append(found[:4])
                return
        children = collections.defaultdict(list)
        for code in codes:
            if len(code) == len(prefix):
                out.append(summary(code, [code], whole=True)[:4])
            else:
                children[code[len(prefix)]].append(code)
        for _, group in sorted(children.items()):
            visit(prefix + group[0][len(prefix)], group)

    visit("", sorted(by_code))
    return out


def main():
    rows = collections.defaultdict(list)
    for line in SOURCE.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if len(columns) < 11 or not columns[9] or not columns[10] or "CEDEX" in columns[1].upper():
            continue
        code = normalized(columns[1])
        if 0 < len(code) <= LONGEST_CODE:  # leaves out a few businesses' codes ("78078 CITYSSIMO")
            rows[columns[0]].append((code, columns[1].strip(), clean(columns[2]),
                                     float(columns[9]), float(columns[10])))
    lines = [
        "# Postcodes: GeoNames (https://www.geonames.org), CC BY 4.0, via geotz 0.0.2b0 (allCountries postal codes).",
        "# Derived by scripts/derive-postcodes.py. Z<TAB>country code<TAB>postcode or shared beginning, letters and digits only"
        "<TAB>as written, when it differs<TAB>place<TAB>latitude<TAB>longitude",
    ]
    total = 0
    for country in sorted(rows):
        for code, written, name, (latitude, longitude) in areas(rows[country]):
            if country in BEGINNINGS and not written.endswith("…"):
                written += "…"
            lines.append("Z\t{}\t{}\t{}\t{}\t{:.3f}\t{:.3f}".format(
                country, code, "" if written == code else written, name, latitude, longitude))
            total += 1
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT}: {total} postcode areas in {len(rows)} countries, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
