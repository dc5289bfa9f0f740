#!/usr/bin/env python3
"""Writes camera-like JPEGs for relay's rendition tests and benchmarks.

A camera JPEG is large (a 45-megapixel body writes 15-25 MB at its finest setting), full of fine
detail and sensor noise, 4:2:2 or 4:2:0 subsampled, and carries EXIF (make, model, capture time,
orientation, often GPS), an ICC profile (sRGB or Adobe RGB), and sometimes XMP and IPTC. This
script makes such files with Pillow so the tests can check that a rendition keeps what it must.

    camera_jpeg.py OUT.JPG [--width 8192 --height 5464] [--quality 95] [--orientation 1..8]
                   [--gps] [--no-icc] [--xmp] [--seed N]
"""
import argparse
import io
import sys

from PIL import Image, ImageCms, ImageDraw, ImageFilter

GPS_IFD = 0x8825
EXIF_IFD = 0x8769


def scene(width, height, seed):
    """Colour gradients, hard edges, text-like strokes and sensor noise: detail at every scale."""
    small = Image.new("RGB", (256, 256))
    pixels = small.load()
    for y in range(256):
        for x in range(256):
            pixels[x, y] = ((x + seed * 37) % 256, (y * 2 + seed * 11) % 256, (x + y + seed * 5) % 256)
    image = small.resize((width, height), Image.BILINEAR)
    draw = ImageDraw.Draw(image)
    step = max(8, width // 64)
    for i in range(0, width, step):
        shade = (i * 7 + seed * 13) % 256
        draw.line([(i, 0), (width - i, height)], fill=(shade, 255 - shade, (shade * 3) % 256), width=max(1, step // 8))
    # An unmistakable top-left marker: a red square, so orientation can be checked from pixels.
    mark = max(16, min(width, height) // 6)
    draw.rectangle([0, 0, mark, mark], fill=(255, 0, 0))
    noise = Image.effect_noise((width, height), 40).convert("L")
    grain = Image.merge("RGB", (noise, noise.filter(ImageFilter.SMOOTH), noise))
    return Image.blend(image, grain, 0.22)


def exif_block(args):
    exif = Image.Exif()
    exif[0x010F] = "Canon"  # Make
    exif[0x0110] = "Canon EOS R5"  # Model
    exif[0x0112] = args.orientation  # Orientation
    exif[0x0131] = "relay camera_jpeg.py"  # Software
    exif[0x0132] = "2026:11:23 12:00:00"  # DateTime
    exif_ifd = exif.get_ifd(EXIF_IFD)
    exif_ifd[0x9003] = "2026:11:23 12:00:00"  # DateTimeOriginal
    exif_ifd[0x829A] = (1, 250)  # ExposureTime
    exif_ifd[0x8827] = 800  # ISO
    exif_ifd[0xA002] = args.width  # PixelXDimension
    exif_ifd[0xA003] = args.height  # PixelYDimension
    if args.gps:
        gps = exif.get_ifd(GPS_IFD)
        gps[1] = "N"
        gps[2] = (52.0, 22.0, 12.5)
        gps[3] = "E"
        gps[4] = (4.0, 53.0, 30.25)
    return exif


XMP = (b'<?xpacket begin="\xef\xbb\xbf" id="W5M0MpCehiHzreSzNTczkc9d"?>'
       b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
       b'<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">'
       b'<dc:creator><rdf:Seq><rdf:li>relay test photographer</rdf:li></rdf:Seq></dc:creator>'
       b'</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=8192)
    parser.add_argument("--height", type=int, default=5464)
    parser.add_argument("--quality", type=int, default=95)
    parser.add_argument("--orientation", type=int, default=1, choices=range(1, 9))
    parser.add_argument("--gps", action="store_true")
    parser.add_argument("--no-icc", action="store_true")
    parser.add_argument("--xmp", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    image = scene(args.width, args.height, args.seed)
    options = {"quality": args.quality, "subsampling": 1, "exif": exif_block(args).tobytes()}
    if not args.no_icc:
        options["icc_profile"] = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    if args.xmp:
        options["xmp"] = XMP
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", **options)
    with open(args.out, "wb") as out:
        out.write(buffer.getvalue())
    print(f"{args.out}: {args.width}x{args.height}, {len(buffer.getvalue())} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
