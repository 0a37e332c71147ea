#!/usr/bin/env python3
"""Builds the seed corpus of every fuzz target from ../shared (the spec vectors and the corpus).

usage: make_seeds.py SHARED_DIR OUT_DIR [REGRESSIONS_DIR]

Files above MAX_SEED bytes are shrunk to a few splats with their structure intact (PLY rows,
SPZ blocks and streams, .splat records) so the fuzzer starts from small, valid inputs; the
large originals add nothing but slow executions. Needs Python's zstandard module for the v4
plain form (skipped with a note when missing).

Files in REGRESSIONS_DIR (Tests/SplatFormatsTests/Regressions) are named
`<target>--<what>.<ext>`; each is added to its target's seeds and, with a name byte chosen
from its extension, to the detect target's, so every run replays them first.
"""
import gzip
import hashlib
import os
import struct
import sys
import zipfile
import io
import json

MAX_SEED = 64 << 10
SHRUNK_SPLATS = 24
SOG_IMAGES = ["means_l.webp", "means_u.webp", "quats.webp", "scales.webp", "sh0.webp",
              "shN_centroids.webp", "shN_labels.webp"]
DETECT_NAMES = ["fuzz.spz", "fuzz.ply", "fuzz.splat", "meta.json", "fuzz.sog", "lod-meta.json", "fuzz", "fuzz.ksplat"]

try:
    import zstandard
except ImportError:  # the v4 plain form needs it; everything else does not
    zstandard = None


def files_under(root, suffixes):
    for base, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(suffixes):
                yield os.path.join(base, name)


def write(out, target, data):
    folder = os.path.join(out, target)
    os.makedirs(folder, exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()
    with open(os.path.join(folder, digest), "wb") as f:
        f.write(data)


# --- SPZ ------------------------------------------------------------------------------------

def sh_dim(d):
    return (d + 1) * (d + 1) - 1


def legacy_blocks(version, n, d):
    return [n * (6 if version == 1 else 9), n, 3 * n, 3 * n, n * (3 if version < 3 else 4), 3 * n * sh_dim(d)]


def shrink_legacy_payload(payload, k):
    magic, version, n, d = struct.unpack_from("<IIIB", payload, 0)
    if magic != 0x5053474E or version not in (1, 2, 3) or d > 4 or n <= k:
        return payload
    sizes = legacy_blocks(version, n, d)
    out = bytearray(payload[:16])
    struct.pack_into("<I", out, 8, k)
    at = 16
    for size in sizes:
        stride = size // n
        out += payload[at:at + stride * k]
        at += size
    return bytes(out)


def v4_plain(data, k):
    """The "NGSQ" plain form read by the spz-v4 entry (FuzzInputs.spzV4), shrunk to k splats."""
    if zstandard is None or len(data) < 32:
        return None
    n, d, streams, toc = struct.unpack_from("<I", data, 8)[0], data[12], data[15], struct.unpack_from("<I", data, 16)[0]
    plain = []
    at = toc + 16 * streams
    for i in range(streams):
        csize, usize = struct.unpack_from("<QQ", data, toc + 16 * i)
        plain.append(zstandard.ZstdDecompressor().decompress(data[at:at + csize], max_output_size=usize))
        at += csize
    m = min(n, k)
    if m < n:
        plain = [p[:len(p) // n * m] for p in plain]
    head = bytearray(data[:toc])
    head[3] = 0x51  # "NGSQ"
    struct.pack_into("<I", head, 8, m)
    for p in plain:
        head += struct.pack("<QQ", len(p), len(p))
    return bytes(head) + b"".join(plain)


def spz_seeds(shared, out):
    for path in files_under(shared, (".spz",)):
        data = open(path, "rb").read()
        if data[:2] == b"\x1f\x8b":
            try:
                payload = gzip.decompress(data)
            except Exception:
                payload = None
            if len(data) <= MAX_SEED:
                write(out, "spz-legacy", data)
            if payload:
                small = shrink_legacy_payload(payload, SHRUNK_SPLATS)
                if len(small) <= MAX_SEED:
                    write(out, "spz-legacy", small)
                    write(out, "spz-legacy", gzip.compress(small, 9, mtime=0))
        elif data[:4] == b"NGSP":
            if len(data) <= MAX_SEED:
                write(out, "spz-v4", data)
            try:
                plain = v4_plain(data, SHRUNK_SPLATS)
            except Exception:
                plain = None  # the bad-* vectors
            if plain and len(plain) <= MAX_SEED:
                write(out, "spz-v4", plain)
        if len(data) <= MAX_SEED:
            write(out, "detect", bytes([0]) + data)


# --- PLY ------------------------------------------------------------------------------------

PLY_SIZES = {"char": 1, "int8": 1, "uchar": 1, "uint8": 1, "short": 2, "int16": 2, "ushort": 2, "uint16": 2,
             "int": 4, "int32": 4, "uint": 4, "uint32": 4, "float": 4, "float32": 4, "double": 8, "float64": 8}


def shrink_binary_ply(data, new_counts):
    """Keeps the first rows of each element; None for ASCII, lists or anything unexpected."""
    end = data.find(b"end_header")
    if end < 0:
        return None
    body = data.index(b"\n", end) + 1
    lines = data[:body].decode("latin1").split("\n")
    elements = []
    out_lines = []
    for line in lines:
        words = line.split()
        if words[:1] == ["format"] and words[1] != "binary_little_endian":
            return None
        if words[:1] == ["element"]:
            name, count = words[1], int(words[2])
            keep = new_counts(name, count)
            elements.append([name, count, keep, 0])
            line = "element %s %d" % (name, keep)
        elif words[:1] == ["property"]:
            if words[1] == "list":
                return None
            elements[-1][3] += PLY_SIZES[words[1]]
        out_lines.append(line)
    out = bytearray("\n".join(out_lines).encode("latin1"))
    at = body
    for _, count, keep, row in elements:
        out += data[at:at + keep * row]
        at += count * row
    return bytes(out)


def ply_seeds(shared, out):
    for path in files_under(shared, (".ply",)):
        data = open(path, "rb").read()
        compressed = b"packed_position" in data[:4096]
        target = "compressed-ply" if compressed else "ply"
        if len(data) <= MAX_SEED:
            write(out, target, data)
            write(out, "detect", bytes([1]) + data)
            continue
        if compressed:
            keep = lambda name, count: 1 if name == "chunk" else min(count, 256)
        else:
            keep = lambda name, count: min(count, SHRUNK_SPLATS)
        small = shrink_binary_ply(data, keep)
        if small and len(small) <= MAX_SEED:
            write(out, target, small)
            write(out, "detect", bytes([1]) + small)


# --- .splat ---------------------------------------------------------------------------------

def splat_seeds(shared, out):
    for path in files_under(shared, (".splat",)):
        data = open(path, "rb").read()
        small = data if len(data) <= MAX_SEED else data[:32 * SHRUNK_SPLATS]
        write(out, "splat", small)
        write(out, "detect", bytes([2]) + small)


# --- SOG ------------------------------------------------------------------------------------

def sog_parts(meta, images):
    """The form read by the sog-meta entry (FuzzInputs.sogParts)."""
    return meta + b"\x00" + b"".join(images.get(name, b"") for name in SOG_IMAGES)


def sog_seeds(shared, out):
    for path in files_under(shared, (".sog",)):
        data = open(path, "rb").read()
        if len(data) <= MAX_SEED:
            write(out, "sog-zip", data)
            write(out, "detect", bytes([4]) + data)
        with zipfile.ZipFile(path) as z:
            entries = {i.filename: z.read(i.filename) for i in z.infolist()}
        parts = sog_parts(entries.get("meta.json", b"{}"), entries)
        if len(parts) <= MAX_SEED:
            write(out, "sog-meta", parts)
    for meta_path in files_under(shared, ("meta.json",)):
        folder = os.path.dirname(meta_path)
        meta = open(meta_path, "rb").read()
        images = {}
        for name in SOG_IMAGES:
            p = os.path.join(folder, name)
            if os.path.exists(p):
                images[name] = open(p, "rb").read()
        parts = sog_parts(meta, images)
        if len(parts) <= MAX_SEED:
            write(out, "sog-meta", parts)
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
                z.writestr("meta.json", meta)
                for name, content in images.items():
                    z.writestr(name, content)
            write(out, "sog-zip", buffer.getvalue())
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("meta.json", meta)
                for name, content in images.items():
                    z.writestr(name, content)
            write(out, "sog-zip", buffer.getvalue())
        if len(meta) <= MAX_SEED:
            write(out, "detect", bytes([3]) + meta)


# --- glTF, GLB, .ksplat --------------------------------------------------------------------

def glb_split(data):
    n = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + n].rstrip(b" \x00"))
    m = struct.unpack_from("<I", data, 20 + n)[0]
    return doc, data[28 + n:28 + n + m]


def glb_join(doc, bin_chunk):
    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    body = bin_chunk + b"\x00" * (-len(bin_chunk) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text + struct.pack("<II", len(body), 0x004E4942) + body
    return struct.pack("<III", 0x46546C67, 2, 12 + len(chunks)) + chunks


def shrink_spz_glb(data, k):
    """A one-payload SPZ-compressed GLB cut to k splats (payload re-gzipped, counts rewritten)."""
    doc, bin_chunk = glb_split(data)
    views = doc.get("bufferViews", [])
    if len(views) != 1:
        return None
    view = views[0]
    start = view.get("byteOffset", 0)
    payload = shrink_legacy_payload(gzip.decompress(bin_chunk[start:start + view["byteLength"]]), k)
    packed = gzip.compress(payload, 9, mtime=0)
    view["byteOffset"], view["byteLength"] = 0, len(packed)
    doc["buffers"][0]["byteLength"] = len(packed)
    for accessor in doc.get("accessors", []):
        accessor["count"] = k
    return glb_join(doc, packed)


def gltf_seeds(shared, out):
    for path in files_under(shared, (".glb", ".gltf", ".ksplat")):
        data = open(path, "rb").read()
        if len(data) > MAX_SEED and data[:4] == b"glTF":
            try:
                data = shrink_spz_glb(data, SHRUNK_SPLATS)
            except Exception:
                data = None
        if data is None or len(data) > MAX_SEED:
            continue
        write(out, "gltf", data)
        write(out, "detect", bytes([7 if path.endswith(".ksplat") else 6]) + data)


DETECT_BYTE = {".spz": 0, ".ply": 1, ".splat": 2, ".json": 3, ".sog": 4, ".glb": 6, ".gltf": 6, ".ksplat": 7}


def regression_seeds(folder, out):
    for name in sorted(os.listdir(folder)):
        target, sep, _ = name.partition("--")
        if not sep:
            continue
        data = open(os.path.join(folder, name), "rb").read()
        write(out, target, data)
        ext = os.path.splitext(name)[1]
        if ext in DETECT_BYTE:
            write(out, "detect", bytes([DETECT_BYTE[ext]]) + data)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    shared, out = sys.argv[1], sys.argv[2]
    if zstandard is None:
        print("make_seeds: zstandard missing; no v4 plain-form seeds", file=sys.stderr)
    spz_seeds(shared, out)
    ply_seeds(shared, out)
    splat_seeds(shared, out)
    sog_seeds(shared, out)
    gltf_seeds(shared, out)
    if len(sys.argv) == 4:
        regression_seeds(sys.argv[3], out)
    for target in sorted(os.listdir(out)):
        folder = os.path.join(out, target)
        sizes = [os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)]
        print("make_seeds: %-15s %3d seeds, largest %d bytes" % (target, len(sizes), max(sizes)))


if __name__ == "__main__":
    main()
