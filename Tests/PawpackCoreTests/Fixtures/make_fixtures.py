#!/usr/bin/env python3
"""Recreates the image fixtures that ImageSanitizerTests.swift reads.

Needs Python 3.9+ and three PyPI packages:

    pip install pillow piexif pillow-heif

Run it from anywhere; it writes next to itself:

    gps.jpg          JPEG: JFIF APP0, EXIF APP1 with a GPS IFD, XMP APP1 with GPS, ICC APP2,
                     Photoshop APP13, Adobe APP14, a COM segment, and 0xFF fill bytes before a marker
    gps.png          PNG: iCCP, pHYs, eXIf with GPS, tEXt, zTXt, iTXt (XMP) and tIME chunks
    gps.webp         WebP (extended, VP8X): ICCP, VP8, EXIF with GPS and XMP chunks
    gps.heic         HEIC written by libheif: an `Exif` item with GPS and an XMP `mime` item
    plain.jpg        JPEG without any metadata segment
    not-an-image.gif a 4x4 GIF, which Pawpack must refuse whatever it is called

The GPS position is the same everywhere and chosen to be easy to find as bytes in a test:
latitude 51deg 30' 26.34" N, longitude 0deg 7' 39.99" W (big-endian EXIF, so the seconds are the
rationals 00000A4A/00000064 and 00000F9F/00000064). The XMP packet says the same in text.

The pictures are tiny (64x48) so that each file stays a few kilobytes.
"""

import io
import struct
import zlib
from pathlib import Path

import piexif
import pillow_heif
from PIL import Image, ImageCms, ImageDraw
from PIL.PngImagePlugin import PngInfo

HERE = Path(__file__).resolve().parent

LATITUDE = ((51, 1), (30, 1), (2634, 100))
LONGITUDE = ((0, 1), (7, 1), (3999, 100))

XMP = (
    b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
    b'<x:xmpmeta xmlns:x="adobe:ns:meta/">\n'
    b' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
    b'  <rdf:Description rdf:about=""\n'
    b'    xmlns:xmp="http://ns.adobe.com/xap/1.0/"\n'
    b'    xmlns:exif="http://ns.adobe.com/exif/1.0/"\n'
    b'    xmp:CreatorTool="Pawpack fixtures"\n'
    b'    exif:GPSLatitude="51,30.439N"\n'
    b'    exif:GPSLongitude="0,7.6665W"/>\n'
    b' </rdf:RDF>\n'
    b'</x:xmpmeta>\n'
    b'<?xpacket end="w"?>'
)
# An odd length, so that the WebP XMP chunk needs its pad byte.
assert len(XMP) % 2 == 1


def picture() -> Image.Image:
    """A small, deterministic picture: a gradient with a paw print."""
    image = Image.new("RGB", (64, 48))
    pixels = image.load()
    for y in range(48):
        for x in range(64):
            pixels[x, y] = (120 + x, 90 + y * 2, 160 - x)
    draw = ImageDraw.Draw(image)
    draw.ellipse((22, 22, 42, 40), fill=(60, 40, 30))
    for cx, cy in ((18, 16), (27, 10), (37, 10), (46, 16)):
        draw.ellipse((cx - 4, cy - 5, cx + 4, cy + 5), fill=(60, 40, 30))
    return image


def exif_with_gps() -> bytes:
    """EXIF (with the leading b"Exif\\0\\0") holding a camera make, a date and a GPS IFD."""
    return piexif.dump({
        "0th": {piexif.ImageIFD.Make: b"Pawpack", piexif.ImageIFD.Model: b"Fixture Cam"},
        "Exif": {piexif.ExifIFD.DateTimeOriginal: b"2026:03:01 12:00:00"},
        "GPS": {
            piexif.GPSIFD.GPSVersionID: (2, 3, 0, 0),
            piexif.GPSIFD.GPSLatitudeRef: b"N",
            piexif.GPSIFD.GPSLatitude: LATITUDE,
            piexif.GPSIFD.GPSLongitudeRef: b"W",
            piexif.GPSIFD.GPSLongitude: LONGITUDE,
        },
    })


def srgb_profile() -> bytes:
    profile = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    # Little CMS stamps the creation time (header bytes 24-35) and an MD5 profile ID over the
    # header (84-99); a fixed date and a zero ID ("not computed") keep the fixtures reproducible.
    profile[24:36] = struct.pack(">6H", 2026, 3, 1, 12, 0, 0)
    profile[84:100] = bytes(16)
    return bytes(profile)


def jpeg_segments(data: bytes):
    """Splits a JPEG into (marker, whole segment bytes) up to SOS, then the rest."""
    assert data[:2] == b"\xff\xd8"
    position, segments = 2, []
    while True:
        marker = data[position + 1]
        if marker == 0xDA:
            return segments, data[position:]
        length = struct.unpack(">H", data[position + 2:position + 4])[0]
        segments.append((marker, data[position:position + 2 + length]))
        position += 2 + length


def segment(marker: int, payload: bytes) -> bytes:
    return bytes((0xFF, marker)) + struct.pack(">H", len(payload) + 2) + payload


def make_jpeg() -> None:
    buffer = io.BytesIO()
    picture().save(buffer, "JPEG", quality=85, exif=exif_with_gps(), xmp=XMP,
                   comment=b"Taken at 51.5073N 0.1278W by the fixture", icc_profile=srgb_profile())
    segments, scan = jpeg_segments(buffer.getvalue())
    # Photoshop IRB (APP13) with an IPTC block: dropped by the sanitizer.
    photoshop = segment(0xED, b"Photoshop 3.0\x00" + b"8BIM\x04\x04\x00\x00" + struct.pack(">I", 12)
                        + b"\x1c\x02\x5a\x00\x06London")
    # Adobe APP14 with transform 1 (YCbCr), which is what this file is: kept by the sanitizer.
    adobe = segment(0xEE, b"Adobe" + struct.pack(">HHHB", 100, 0, 0, 1))
    out = bytearray(b"\xff\xd8")
    first_table = next(index for index, (marker, _) in enumerate(segments) if marker == 0xDB)
    for index, (marker, whole) in enumerate(segments):
        if index == first_table:
            # JPEG allows any number of 0xFF fill bytes before a marker (T.81 B.1.1.2).
            out += b"\xff\xff\xff" + adobe + photoshop
        out += whole
    out += scan
    (HERE / "gps.jpg").write_bytes(bytes(out))

    plain = io.BytesIO()
    picture().save(plain, "JPEG", quality=85)
    (HERE / "plain.jpg").write_bytes(plain.getvalue())


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def make_png() -> None:
    info = PngInfo()
    info.add_text("Comment", "Walkies at 51.5073N 0.1278W")
    info.add_text("Location", "London, by the pond", zip=True)
    info.add_itxt("XML:com.adobe.xmp", XMP.decode("utf-8"))
    buffer = io.BytesIO()
    picture().save(buffer, "PNG", pnginfo=info, exif=exif_with_gps(), icc_profile=srgb_profile(),
                   dpi=(72, 72), optimize=True)
    data = buffer.getvalue()
    # Pillow cannot write tIME; put one right after IHDR (8-byte signature + 25-byte IHDR).
    time_chunk = png_chunk(b"tIME", struct.pack(">HBBBBB", 2026, 3, 1, 12, 0, 0))
    (HERE / "gps.png").write_bytes(data[:33] + time_chunk + data[33:])


def make_webp() -> None:
    buffer = io.BytesIO()
    picture().save(buffer, "WEBP", quality=80, method=6, exif=exif_with_gps(), xmp=XMP,
                   icc_profile=srgb_profile())
    (HERE / "gps.webp").write_bytes(buffer.getvalue())


def make_heic() -> None:
    pillow_heif.register_heif_opener()
    buffer = io.BytesIO()
    picture().save(buffer, "HEIF", quality=60, exif=exif_with_gps(), xmp=XMP)
    (HERE / "gps.heic").write_bytes(buffer.getvalue())


def make_gif() -> None:
    buffer = io.BytesIO()
    Image.new("P", (4, 4), 1).save(buffer, "GIF")
    (HERE / "not-an-image.gif").write_bytes(buffer.getvalue())


if __name__ == "__main__":
    make_jpeg()
    make_png()
    make_webp()
    make_heic()
    make_gif()
    for path in sorted(HERE.iterdir()):
        if path.suffix != ".py":
            print(f"{path.name:18} {path.stat().st_size:6} bytes")
