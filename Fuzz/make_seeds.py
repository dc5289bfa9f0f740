#!/usr/bin/env python3
"""Writes the committed seed corpus of the fuzz targets: well-formed PTP/IP packets, event
lists, DeviceInfo and ObjectInfo datasets, SSDP messages and UPnP device descriptions, built from the layouts in ../shared/PTPIP.md, plus
the Canon EOS GetEvent reply recorded from a real body (../shared/fixtures)."""
import os
import shutil
import struct

here = os.path.dirname(os.path.abspath(__file__))


def ptp_string(text):
    if not text:
        return b"\x00"
    units = text.encode("utf-16-le") + b"\x00\x00"
    return bytes([len(text) + 1]) + units


def u16_array(values):
    return struct.pack("<I", len(values)) + b"".join(struct.pack("<H", v) for v in values)


def packet(kind, payload):
    return struct.pack("<II", 8 + len(payload), kind) + payload


def device_info(vendor, manufacturer, model, operations):
    return (struct.pack("<HIH", 100, vendor, 100) + ptp_string("relay seed") + struct.pack("<H", 0)
            + u16_array(operations) + u16_array([0x4002, 0x400D]) + u16_array([0x5001]) + u16_array([0x3801])
            + u16_array([0x3001, 0x3801, 0xB108]) + ptp_string(manufacturer) + ptp_string(model)
            + ptp_string("1.0") + ptp_string("SEED0001"))


def object_info(name, fmt=0x3801, size=123456, parent=0):
    fixed = struct.pack("<IHHIHIIIIIIIHII", 0x10001, fmt, 0, size, 0x3808, 0, 0, 0, 6000, 4000, 24, parent, 0, 0, 0)
    return fixed + ptp_string(name) + ptp_string("20261123T101010") + ptp_string("20261123T101010") + ptp_string("")


def write(target, name, data):
    with open(os.path.join(here, "corpus", target, name), "wb") as f:
        f.write(data)


guid = bytes(range(16))
write("packets", "init-command-ack", packet(2, struct.pack("<I", 1) + guid + ptp_string("cam")[1:] + struct.pack("<I", 0x10000)))
write("packets", "operation-response", packet(7, struct.pack("<HII", 0x2001, 5, 42)))
write("packets", "data-phase", packet(9, struct.pack("<IQ", 5, 10)) + packet(10, struct.pack("<I", 5) + b"\xff\xd8abc")
      + packet(12, struct.pack("<I", 5) + b"de\xff\xd9") + packet(7, struct.pack("<HI", 0x2001, 5)))
write("packets", "event", packet(8, struct.pack("<HII", 0x4002, 0xFFFFFFFF, 0x1234)))
write("packets", "probe", packet(13, b""))
write("packets", "init-fail", packet(5, struct.pack("<I", 0x2019)))

write("deviceinfo", "canon", device_info(0xB, "Canon.Inc", "Canon EOS R50", [0x1001, 0x1002, 0x9116, 0x9128]))
write("deviceinfo", "nikon", device_info(0xA, "Nikon Corporation", "Z 6", [0x1001, 0x90C7, 0x941C]))
write("deviceinfo", "generic", device_info(0, "Somebody", "Generic", [0x1001, 0x100E]))

write("objectinfo", "jpeg", object_info("IMG_0001.JPG"))
write("objectinfo", "raw", object_info("IMG_0001.CR3", fmt=0xB108))
write("objectinfo", "folder", object_info("100CANON", fmt=0x3001))
write("objectinfo", "traversal", object_info("../../x.jpg"))

nikon = struct.pack("<H", 2) + struct.pack("<HI", 0x4002, 7) + struct.pack("<HI", 0x400D, 0)
write("events", "nikon-getevent", nikon)
write("events", "nikon-geteventex", struct.pack("<HH", 1, 0) + struct.pack("<HHI", 0x4002, 1, 9))
added = struct.pack("<IIIIH", 0, 0xC181, 0x90000001, 0x10001, 0x3801) + b"\x00" * 10 + struct.pack("<II", 555, 0x90000000) + b"\x00" * 4 + b"IMG_0001.JPG\x00"
record = struct.pack("<I", len(added)) + added[4:]
write("events", "canon-object-added", record + struct.pack("<II", 8, 0))
lfn_added = (struct.pack("<IIIH", 0x0A000001, 0x10001, 0x3801, 0)[:10] + b"\x00" * 10 + struct.pack("<QII", 24000000, 0x09000001, 0)
             + b"\x00" * 16 + ptp_string("IMG_0042.JPG"))
write("events", "canon-r5m2-object-added-lfn", struct.pack("<II", 8 + len(lfn_added), 0xC1B6) + lfn_added + struct.pack("<II", 8, 0))
write("events", "canon-r5m2-transfer-lfn", bytes.fromhex("25000000b8c1000040c03214" "08b1000000000000d41ca602" "0000000000c03214060000000008000000" "00000000"))
sony_ext = struct.pack("<H", 0x12C) + u16_array([0x5005, 0xD215, 0xD25A]) + u16_array([0x9209, 0xC201])
write("events", "sony-ext-device-info", sony_ext)
write("deviceinfo", "nikon-z", device_info(0xFFFFFFFF, "Nikon Corporation", "Z 8", [0x1001, 0x1002, 0x1003, 0x9421, 0x9431, 0x941C]))
write("deviceinfo", "sony", device_info(0xFFFFFFFF, "Sony Corporation", "ILCE-7M3", [0x1001, 0x1002, 0x1003, 0x9201, 0x9202, 0x9280, 0x9281]))
fixture = os.path.join(here, "..", "..", "shared", "fixtures", "canon-eos", "getevent-initial.bin")
if os.path.exists(fixture):
    shutil.copyfile(fixture, os.path.join(here, "corpus", "events", "canon-recorded-initial"))

os.makedirs(os.path.join(here, "corpus", "ssdp"), exist_ok=True)
os.makedirs(os.path.join(here, "corpus", "description"), exist_ok=True)


def ssdp(*lines):
    return "\r\n".join(lines + ("", "")).encode()


canon_eos = "urn:schemas-canon-com:service:ICPO-WFTEOSSystemService:1"
canon_phone = "urn:schemas-canon-com:service:ICPO-SmartPhoneEOSSystemService:1"
sony = "urn:microsoft-com:service:MtpNullService:1"
write("ssdp", "canon-answer", ssdp("HTTP/1.1 200 OK", "Cache-Control: max-age=1800", "EXT:",
                                   "Location: http://192.168.1.10:49152/upnp/CameraDevDesc.xml", "ST: " + canon_phone,
                                   "USN: uuid:00000000-0000-0000-0001-2C9EFCD137BE::" + canon_phone))
write("ssdp", "sony-notify", ssdp("NOTIFY * HTTP/1.1", "HOST: 239.255.255.250:1900",
                                  "LOCATION: http://192.168.1.209:1900/DeviceDescription.xml", "NT: " + sony,
                                  "NTS: ssdp:alive", "USN: uuid:00000000-0001-0010-8000-98f17039c6fc::" + sony))
write("ssdp", "canon-byebye", ssdp("NOTIFY * HTTP/1.1", "NT: " + canon_eos, "NTS: ssdp:byebye", "USN: uuid:1::" + canon_eos))
write("ssdp", "search", ssdp("M-SEARCH * HTTP/1.1", "HOST: 239.255.255.250:1900", 'MAN: "ssdp:discover"', "MX: 1",
                             "ST: ssdp:all"))
write("description", "canon", ("<?xml version=\"1.0\"?>\n<root xmlns=\"urn:schemas-upnp-org:device-1-0\">"
                               "<specVersion><major>1</major><minor>0</minor></specVersion><device>"
                               "<deviceType>urn:schemas-upnp-org:device:Basic:1</deviceType>"
                               "<friendlyName>Canon EOS R50</friendlyName><manufacturer>Canon</manufacturer>"
                               "<modelName>Canon EOS R50</modelName><serialNumber>123456789123</serialNumber>"
                               "<UDN>uuid:00000000-0000-0000-0001-00BBC1859FAB</UDN><serviceList><service>"
                               "<serviceType>" + canon_eos + "</serviceType></service></serviceList>"
                               "<deviceList><device><modelName>embedded</modelName></device></deviceList>"
                               "</device></root>").encode())
write("description", "escaped", ("<root><device><friendlyName>A &amp; B &lt;1&gt;</friendlyName>"
                                 "<modelName><![CDATA[R5 <II>]]></modelName></device></root>").encode())
os.makedirs(os.path.join(here, "corpus", "ftp"), exist_ok=True)
write("ftp", "camera-session", b"USER alice\r\nPASS pw\r\nTYPE I\r\nCWD /DCIM\r\nMKD 100CANON\r\nPASV\r\nSTOR IMG_0001.JPG\r\nQUIT\r\n")
write("ftp", "active-and-resume", b"PORT 192,168,1,20,4,1\r\nEPRT |1|10.0.0.5|6275|\r\nEPRT |2|::1|7|\r\nREST 1048576\r\nAPPE x.jpg\r\n")
write("ftp", "extensions", b"FEAT\r\nOPTS UTF8 ON\r\nEPSV ALL\r\nSIZE a.jpg\r\nMDTM a.jpg\r\nAUTH TLS\r\nPBSZ 0\r\nPROT P\r\n")
write("ftp", "hostile", b"\xff\xf4\xff\xf2ABOR\r\nSTOR ../../x.jpg\r\nCWD ~root\r\nSTOR C:\\x.jpg\r\nRNFR a\nRNTO /../b\n")
# Whole files for the structure walkers: a small baseline JPEG (SOI, DQT, SOF0, SOS, scan, EOI),
# a TIFF RAW with one strip, a CR3-like box sequence and a RAF header with its regions.
import struct
jpeg = (b"\xff\xd8" + b"\xff\xdb\x00\x43\x00" + bytes(range(64))
        + b"\xff\xc0\x00\x0b\x08\x00\x08\x00\x08\x01\x01\x11\x00"
        + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + bytes([0x12, 0xff, 0x00, 0x34]) * 8 + b"\xff\xd9")
os.makedirs(os.path.join(here, "corpus", "jpeg"), exist_ok=True)
write("jpeg", "baseline", jpeg)
write("jpeg", "trailer", jpeg + b"SEFH" + b"\x00" * 40 + b"SEFT")
tiff = b"II*\x00" + struct.pack("<IH", 8, 2) + struct.pack("<HHII", 0x111, 4, 1, 38) + struct.pack("<HHII", 0x117, 4, 1, 64) \
    + struct.pack("<I", 0) + bytes(64)
os.makedirs(os.path.join(here, "corpus", "raw"), exist_ok=True)
write("raw", "tiff", tiff)
write("raw", "cr3", struct.pack(">I", 24) + b"ftypcrx " + b"\x00\x00\x00\x01crx isom" + struct.pack(">I", 16) + b"mdat" + bytes(8))
raf = b"FUJIFILMCCD-RAW " + bytes(68) + struct.pack(">6I", 108, 16, 124, 8, 132, 32)
write("raw", "raf", raf + bytes(164 - len(raf)))

