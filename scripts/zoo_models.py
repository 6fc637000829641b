"""The architectures of dsmp's own model zoo (scripts/make-zoo.py).

Each entry builds a torch module with random weights and says how to feed
it: an input maker per set (set 0 and set 1 differ in batch, and the
sequence models in length), the dynamic axes and the opset it is exported
at. Sizes are small (inputs of 32-64 pixels, widths of 32-64) so that the
whole zoo compiles in minutes on two cores; the op mix is what matters.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.models as tvm
import torchvision.models.segmentation as seg
import torchvision.models.video as video
from torchvision.models import optical_flow
from torchvision.models.convnext import CNBlockConfig, ConvNeXt


def images(size, channels=3):
    def make(batch, gen, which=0):
        return (torch.randn(batch, channels, size, size, generator=gen),)
    return make


def tokens(vocab, lengths=(16, 20)):
    def make(batch, gen, which=0):
        return (torch.randint(0, vocab, (batch, lengths[which]), generator=gen),)
    return make


def audio(length):
    def make(batch, gen, which=0):
        return (torch.randn(batch, 1, length + 800 * which, generator=gen),)
    return make


# --- sequence and audio models the zoo builds itself -------------------------

class SelfAttention(nn.Module):
    """Multi-head self-attention with explicit reshapes (the TorchScript
    exporter bakes nn.MultiheadAttention's shapes in as constants)."""

    def __init__(self, dim, heads, causal=False):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        if self.causal:
            # The causal mask from triu: ONNX Trilu at opset 14 and later.
            mask = torch.triu(torch.ones(s, s, dtype=torch.bool, device=x.device), diagonal=1)
            scores = scores.masked_fill(mask, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.proj(out.transpose(1, 2).reshape(b, s, d))


class EncoderLayer(nn.Module):
    """BERT's post-LN layer: attention, then a GELU feed-forward."""

    def __init__(self, dim, heads):
        super().__init__()
        self.attn = SelfAttention(dim, heads)
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.ff(x))


class EncoderClassifier(nn.Module):
    """DistilBERT-like: word + position embeddings, post-LN encoder layers
    (exact GELU), the first token's state into a classifier."""

    def __init__(self, vocab=1000, dim=64, heads=4, layers=2, classes=4):
        super().__init__()
        self.word = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(64, dim)
        self.norm = nn.LayerNorm(dim)
        self.layers = nn.ModuleList(EncoderLayer(dim, heads) for _ in range(layers))
        self.head = nn.Linear(dim, classes)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        h = self.norm(self.word(ids) + self.pos(positions))
        for layer in self.layers:
            h = layer(h)
        return self.head(h[:, 0])


class DecoderBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads, causal=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPTLike(nn.Module):
    """GPT-2-like: pre-LN decoder blocks with a causal mask, tanh GELU, an
    LM head tied to the token embedding."""

    def __init__(self, vocab=512, dim=64, heads=4, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(64, dim)
        self.blocks = nn.ModuleList(DecoderBlock(dim, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.tok(ids) + self.pos(positions)
        for block in self.blocks:
            x = block(x)
        return self.ln(x) @ self.tok.weight.t()


class T5LikeEncoder(nn.Module):
    """T5-style: RMS norm, no position embedding, a learned bias per
    relative-position bucket (Range, Log, Where, Min) added to the scores."""

    def __init__(self, vocab=512, dim=64, heads=4, layers=2, buckets=16, max_distance=64):
        super().__init__()
        self.heads, self.buckets, self.max_distance = heads, buckets, max_distance
        self.embed = nn.Embedding(vocab, dim)
        self.bias = nn.Embedding(buckets, heads)
        self.qkv = nn.ModuleList(nn.Linear(dim, 3 * dim, bias=False) for _ in range(layers))
        self.out = nn.ModuleList(nn.Linear(dim, dim, bias=False) for _ in range(layers))
        self.ff = nn.ModuleList(nn.Sequential(nn.Linear(dim, 2 * dim, bias=False), nn.ReLU(),
                                              nn.Linear(2 * dim, dim, bias=False))
                                for _ in range(layers))
        self.scale1 = nn.ParameterList(nn.Parameter(torch.ones(dim)) for _ in range(layers))
        self.scale2 = nn.ParameterList(nn.Parameter(torch.ones(dim)) for _ in range(layers))
        self.head = nn.Linear(dim, 8)

    @staticmethod
    def rms(x, scale):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * scale

    def bucket(self, relative):
        half = self.buckets // 2
        out = (relative > 0).to(torch.long) * half
        n = relative.abs()
        exact = half // 2
        large = exact + (torch.log(n.float() / exact + 1e-6) / math.log(self.max_distance / exact)
                         * (half - exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, half - 1))
        return out + torch.where(n < exact, n, large)

    def forward(self, ids):
        b, s = ids.shape
        pos = torch.arange(s, device=ids.device)
        bias = self.bias(self.bucket(pos[None, :] - pos[:, None])).permute(2, 0, 1)
        x = self.embed(ids)
        d = x.shape[-1]
        for qkv, out, ff, s1, s2 in zip(self.qkv, self.out, self.ff, self.scale1, self.scale2):
            q, k, v = qkv(self.rms(x, s1)).split(d, dim=-1)
            q, k, v = (t.reshape(b, s, self.heads, d // self.heads).transpose(1, 2)
                       for t in (q, k, v))
            att = torch.softmax(q @ k.transpose(-2, -1) + bias, dim=-1) @ v
            x = x + out(att.transpose(1, 2).reshape(b, s, d))
            x = x + ff(self.rms(x, s2))
        return self.head(x.mean(1))


class RecurrentClassifier(nn.Module):
    """Embedding, a bidirectional GRU, the last step into a classifier."""

    def __init__(self, vocab=1000, dim=48, hidden=64, classes=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.GRU(dim, hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return self.head(out[:, -1])


class LSTMLanguageModel(nn.Module):
    """Embedding, two LSTM layers, a softmax over the vocabulary per step."""

    def __init__(self, vocab=400, dim=48, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.rnn = nn.LSTM(dim, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return torch.log_softmax(self.head(out), dim=-1)


class AudioCNN(nn.Module):
    """M5-like raw-waveform classifier: strided Conv1d, BatchNorm, MaxPool,
    global average."""

    def __init__(self, classes=10, width=32):
        super().__init__()
        layers, channels = [], 1
        for i, (k, s) in enumerate([(80, 4), (3, 1), (3, 1), (3, 1)]):
            out = width * (2 if i >= 2 else 1)
            layers += [nn.Conv1d(channels, out, k, stride=s), nn.BatchNorm1d(out), nn.ReLU(),
                       nn.MaxPool1d(4)]
            channels = out
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(channels, classes)

    def forward(self, x):
        return self.head(self.features(x).mean(-1))


class ConformerLike(nn.Module):
    """Conv subsampling, then a conformer block: macaron feed-forwards,
    self-attention, a convolution module with GLU (Split at opset 13+)."""

    def __init__(self, mels=40, dim=64, heads=4, classes=30):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv1d(mels, dim, 3, stride=2), nn.SiLU())
        self.ff1 = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.SiLU(),
                                 nn.Linear(2 * dim, dim))
        self.ln_att = nn.LayerNorm(dim)
        self.att = SelfAttention(dim, heads)
        self.ln_conv = nn.LayerNorm(dim)
        self.pointwise = nn.Conv1d(dim, 2 * dim, 1)
        self.depthwise = nn.Conv1d(dim, dim, 7, padding=3, groups=dim)
        self.bn = nn.BatchNorm1d(dim)
        self.pointwise2 = nn.Conv1d(dim, dim, 1)
        self.ff2 = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.SiLU(),
                                 nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):  # x: [batch, mels, frames]
        h = self.subsample(x).transpose(1, 2)
        h = h + 0.5 * self.ff1(h)
        h = h + self.att(self.ln_att(h))
        c = self.ln_conv(h).transpose(1, 2)
        c = F.glu(self.pointwise(c), dim=1)
        c = self.pointwise2(F.silu(self.bn(self.depthwise(c))))
        h = h + c.transpose(1, 2)
        h = h + 0.5 * self.ff2(h)
        return torch.log_softmax(self.head(h), dim=-1)


class CRNN(nn.Module):
    """A CTC text recogniser: a small CNN over a text-line image, a
    bidirectional LSTM over its columns, log-softmax per column."""

    def __init__(self, classes=37):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d((2, 1)),
            nn.Conv2d(32, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU())
        self.rnn = nn.LSTM(48, 48, batch_first=True, bidirectional=True)
        self.head = nn.Linear(96, classes)

    def forward(self, x):
        f = self.cnn(x).mean(2).transpose(1, 2)  # [batch, columns, 48]
        out, _ = self.rnn(f)
        return F.log_softmax(self.head(out), dim=-1)


class MLPMixer(nn.Module):
    """MLP-Mixer: patch embedding, token- and channel-mixing MLPs."""

    def __init__(self, size=32, patch=4, dim=64, layers=2, classes=10):
        super().__init__()
        tokens_ = (size // patch) ** 2
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(dim), tok=nn.Sequential(nn.Linear(tokens_, 2 * tokens_),
                                                         nn.GELU(), nn.Linear(2 * tokens_, tokens_)),
                ln2=nn.LayerNorm(dim), ch=nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(),
                                                        nn.Linear(2 * dim, dim)))))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        for b in self.blocks:
            x = x + b["tok"](b["ln1"](x).transpose(1, 2)).transpose(1, 2)
            x = x + b["ch"](b["ln2"](x))
        return self.head(self.ln(x).mean(1))


class TinyUNet(nn.Module):
    """A two-level U-Net: ConvTranspose up-sampling, skip Concats."""

    def __init__(self, width=16):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())
        self.d1, self.d2, self.mid = block(3, width), block(width, 2 * width), block(2 * width, 4 * width)
        self.u2 = nn.ConvTranspose2d(4 * width, 2 * width, 2, stride=2)
        self.c2 = block(4 * width, 2 * width)
        self.u1 = nn.ConvTranspose2d(2 * width, width, 2, stride=2)
        self.c1 = block(2 * width, width)
        self.out = nn.Conv2d(width, 2, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        m = self.mid(F.max_pool2d(b, 2))
        b = self.c2(torch.cat([self.u2(m), b], 1))
        return self.out(self.c1(torch.cat([self.u1(b), a], 1)))


# --- the zoo ----------------------------------------------------------------

class ESPCN(nn.Module):
    """Super-resolution: convolutions, then PixelShuffle (DepthToSpace)."""

    def __init__(self, r=3):
        super().__init__()
        self.a = nn.Conv2d(1, 64, 5, padding=2)
        self.b = nn.Conv2d(64, 32, 3, padding=1)
        self.c = nn.Conv2d(32, r * r, 3, padding=1)
        self.shuffle = nn.PixelShuffle(r)

    def forward(self, x):
        return self.shuffle(self.c(torch.tanh(self.b(torch.tanh(self.a(x))))))


class StyleNet(nn.Module):
    """Style transfer: reflection padding, InstanceNorm, residual blocks,
    nearest-neighbour upsampling."""

    def __init__(self):
        super().__init__()

        def block(i, o, k, stride):
            return nn.Sequential(nn.ReflectionPad2d(k // 2), nn.Conv2d(i, o, k, stride),
                                 nn.InstanceNorm2d(o, affine=True), nn.ReLU())
        self.down = nn.Sequential(block(3, 16, 9, 1), block(16, 32, 3, 2), block(32, 64, 3, 2))
        self.res = nn.ModuleList([nn.Sequential(block(64, 64, 3, 1), nn.ReflectionPad2d(1),
                                                nn.Conv2d(64, 64, 3),
                                                nn.InstanceNorm2d(64, affine=True))
                                  for _ in range(2)])
        self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), block(64, 32, 3, 1),
                                nn.Upsample(scale_factor=2, mode="nearest"), block(32, 16, 3, 1),
                                nn.ReflectionPad2d(4), nn.Conv2d(16, 3, 9))

    def forward(self, x):
        y = self.down(x)
        for r in self.res:
            y = y + r(y)
        return self.up(y)


class TCN(nn.Module):
    """Dilated causal 1D convolutions (left padding) with residuals."""

    def __init__(self, channels=32, levels=4):
        super().__init__()
        self.inp = nn.Conv1d(1, channels, 1)
        self.convs = nn.ModuleList([nn.Conv1d(channels, channels, 3, dilation=2 ** i)
                                    for i in range(levels)])
        self.head = nn.Linear(channels, 5)

    def forward(self, x):
        y = self.inp(x)
        for i, conv in enumerate(self.convs):
            y = y + F.relu(conv(F.pad(y, (2 * 2 ** i, 0))))
        return self.head(y.mean(-1))


class BiLSTMClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(800, 48)
        self.lstm = nn.LSTM(48, 32, batch_first=True, bidirectional=True)
        self.head = nn.Linear(64, 4)

    def forward(self, t):
        y, _ = self.lstm(self.emb(t))
        return self.head(y.max(1).values)


class TorchEncoder(nn.Module):
    """nn.TransformerEncoder (its exported attention bakes the sequence
    length in: both sets use 16 tokens)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(600, 64)
        self.pos = nn.Parameter(torch.randn(1, 32, 64) * 0.02)
        layer = nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True,
                                           activation="gelu")
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(64, 3)

    def forward(self, t):
        x = self.emb(t) + self.pos[:, : t.shape[1]]
        return self.head(self.enc(x)[:, 0])


class GroupNormNet(nn.Module):
    def __init__(self):
        super().__init__()

        def block(i, o, stride):
            return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.GroupNorm(8, o),
                                 nn.SiLU())
        self.features = nn.Sequential(block(3, 32, 2), block(32, 64, 2), block(64, 64, 1),
                                      block(64, 128, 2))
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        return self.head(self.features(x).mean((2, 3)))


class AutoEncoder(nn.Module):
    """A ConvTranspose decoder with a sigmoid output in (0, 1)."""

    def __init__(self):
        super().__init__()
        self.encode = nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1), nn.ReLU(),
                                    nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.decode = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                                    nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Sigmoid())

    def forward(self, x):
        return self.decode(self.encode(x))


# --- added in session 27 ------------------------------------------------------

class ConvBNSiLU(nn.Sequential):
    def __init__(self, cin, cout, k=3, stride=1):
        super().__init__(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
                         nn.BatchNorm2d(cout), nn.SiLU())


class C2f(nn.Module):
    """YOLOv8's block: split, a chain of convolutions, concat of all."""

    def __init__(self, c):
        super().__init__()
        self.cv1 = ConvBNSiLU(c, 2 * c, 1)
        self.m = nn.Sequential(ConvBNSiLU(c, c), ConvBNSiLU(c, c))
        self.cv2 = ConvBNSiLU(3 * c, c, 1)

    def forward(self, x):
        a, b = self.cv1(x).chunk(2, 1)
        return self.cv2(torch.cat([a, b, self.m(b)], 1))


class YoloLike(nn.Module):
    """A backbone of C2f blocks, nearest up-sampling and Concat (an FPN
    level), a head with a DFL softmax over box bins and sigmoid class
    scores."""

    def __init__(self):
        super().__init__()
        self.stem = ConvBNSiLU(3, 16, 3, 2)
        self.down1, self.block1 = ConvBNSiLU(16, 32, 3, 2), C2f(32)
        self.down2, self.block2 = ConvBNSiLU(32, 64, 3, 2), C2f(64)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.reduce, self.fuse = ConvBNSiLU(96, 64, 1), C2f(64)
        self.box, self.cls = nn.Conv2d(64, 4 * 8, 1), nn.Conv2d(64, 5, 1)

    def forward(self, x):
        p3 = self.block1(self.down1(self.stem(x)))
        p4 = self.block2(self.down2(p3))
        f = self.fuse(self.reduce(torch.cat([self.up(p4)[:, :64], p3], 1)))
        n, _, h, w = f.shape
        box = self.box(f).view(n, 4, 8, h * w).softmax(2)
        box = (box * torch.arange(8, dtype=torch.float32).view(1, 1, 8, 1)).sum(2)
        return torch.cat([box, self.cls(f).view(n, 5, h * w).sigmoid()], 1)


class Wav2VecLike(nn.Module):
    """wav2vec 2.0's shape: a convolutional feature encoder (GroupNorm with
    a group per channel on its first layer, GELU), a grouped positional
    convolution, post-LN transformer layers, a log-softmax per frame."""

    def __init__(self, d=64):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(1, d, 10, 5, bias=False),
                                    nn.Conv1d(d, d, 3, 2, bias=False),
                                    nn.Conv1d(d, d, 3, 2, bias=False)])
        self.norm0 = nn.GroupNorm(d, d)
        self.proj, self.ln = nn.Linear(d, d), nn.LayerNorm(d)
        self.pos = nn.Conv1d(d, d, 15, padding=7, groups=4)
        self.layers = nn.ModuleList([
            nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True,
                                       activation="gelu") for _ in range(2)])
        self.head = nn.Linear(d, 12)

    def forward(self, x):
        for i, conv in enumerate(self.convs):
            x = conv(x)
            if i == 0:
                x = self.norm0(x)
            x = F.gelu(x)
        x = self.proj(self.ln(x.transpose(1, 2)))
        x = x + F.gelu(self.pos(x.transpose(1, 2))).transpose(1, 2)
        for layer in self.layers:
            x = layer(x)
        return self.head(x).log_softmax(-1)


class DLRMLike(nn.Module):
    """A recommender: a bottom MLP on dense features, embedding tables for
    sparse ones, pairwise dot interactions (bmm, upper triangle), a top MLP
    and a click probability."""

    SIZES = (1000, 500, 200, 50)

    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList([nn.Embedding(n, 16) for n in self.SIZES])
        self.bottom = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 16), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(16 + 10, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense, sparse):
        z = [self.bottom(dense)] + [t(sparse[:, i]) for i, t in enumerate(self.tables)]
        stacked = torch.stack(z, 1)
        pairs = torch.bmm(stacked, stacked.transpose(1, 2))
        i, j = torch.triu_indices(5, 5, 1)
        return torch.sigmoid(self.top(torch.cat([z[0], pairs[:, i, j]], 1)))


def dlrm_inputs(batch, gen, which=0):
    dense = torch.rand(batch, 13, generator=gen) * 3
    sparse = torch.stack([torch.randint(0, n, (batch,), generator=gen)
                          for n in DLRMLike.SIZES], 1)
    return dense, sparse


class ActZoo(nn.Module):
    """A CNN through the less common activations: PReLU, ELU, Softplus,
    Mish, LeakyReLU, a HardSigmoid gate, HardSwish, AvgPool."""

    def __init__(self):
        super().__init__()
        widths = [(3, 24, 1), (24, 32, 2), (32, 48, 2), (48, 48, 1), (48, 64, 2)]
        self.convs = nn.ModuleList([nn.Conv2d(i, o, 3, s, 1) for i, o, s in widths])
        self.acts = nn.ModuleList([nn.PReLU(24), nn.ELU(), nn.Softplus(), nn.Mish(),
                                   nn.LeakyReLU(0.1)])
        self.gate = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(64, 64, 1),
                                  nn.Hardsigmoid())
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        for conv, act in zip(self.convs, self.acts):
            x = act(conv(x))
        x = F.hardswish(x * self.gate(x))
        return self.fc(F.avg_pool2d(x, 4).flatten(1))


class SegmentationOut(nn.Module):
    """torchvision's segmentation models return a dict; the zoo exports
    its "out" map."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def clip(batch, gen, which=0):
    return (torch.randn(batch, 3, 4, 32, 32, generator=gen),)


def waveform(batch, gen, which=0):
    # nn.TransformerEncoderLayer's export bakes the frame count in.
    return (torch.randn(batch, 1, 3200, generator=gen),)


def mels(frames):
    def make(batch, gen, which=0):
        return (torch.randn(batch, 40, frames + 20 * which, generator=gen),)
    return make


def text_line(batch, gen, which=0):
    return (torch.randn(batch, 1, 32, 96 + 32 * which, generator=gen),)


def vit():
    model = tvm.VisionTransformer(image_size=32, patch_size=8, num_layers=3, num_heads=4,
                                  hidden_dim=64, mlp_dim=128, num_classes=10)
    # torchvision starts the head at zero: every output would be 0.
    nn.init.normal_(model.heads.head.weight, std=0.1)
    return model


def swin():
    return tvm.swin_transformer.SwinTransformer(patch_size=[2, 2], embed_dim=32, depths=[2, 2],
                                                num_heads=[2, 4], window_size=[4, 4],
                                                num_classes=10)


def convnext():
    return ConvNeXt([CNBlockConfig(32, 64, 2), CNBlockConfig(64, None, 2)], num_classes=10)


# --- added in session 28 ------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.w, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return self.w * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


def rotate_half(x):
    a, b = x.chunk(2, -1)
    return torch.cat([-b, a], -1)


class LlamaLike(nn.Module):
    """RMSNorm, rotary embeddings from cos/sin tables sliced to the
    sequence length, SwiGLU, a causal mask filled with finfo.min, tied head."""

    def __init__(self, vocab=500, d=64, heads=4, layers=2, maxlen=64):
        super().__init__()
        self.emb, self.h, self.dh = nn.Embedding(vocab, d), heads, d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, self.dh, 2).float() / self.dh))
        f = torch.outer(torch.arange(maxlen).float(), inv)
        e = torch.cat([f, f], -1)
        self.register_buffer("cos", e.cos())
        self.register_buffer("sin", e.sin())
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                n1=RMSNorm(d), qkv=nn.Linear(d, 3 * d, bias=False), o=nn.Linear(d, d, bias=False),
                n2=RMSNorm(d), gate=nn.Linear(d, 128, bias=False), up=nn.Linear(d, 128, bias=False),
                down=nn.Linear(128, d, bias=False))))
        self.norm = RMSNorm(d)

    def forward(self, ids):
        b, t = ids.shape
        x = self.emb(ids)
        cos, sin = self.cos[:t], self.sin[:t]
        mask = torch.full((t, t), torch.finfo(torch.float32).min).triu(1)
        for blk in self.blocks:
            q, k, v = blk["qkv"](blk["n1"](x)).view(b, t, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            a = (q @ k.transpose(-1, -2)) / math.sqrt(self.dh) + mask
            y = (a.softmax(-1) @ v).transpose(1, 2).reshape(b, t, -1)
            x = x + blk["o"](y)
            h = blk["n2"](x)
            x = x + blk["down"](F.silu(blk["gate"](h)) * blk["up"](h))
        return self.norm(x) @ self.emb.weight.t()


class HFBert(nn.Module):
    """HuggingFace BERT's export: input_ids, attention_mask and
    token_type_ids; the extended mask (1 - m) * finfo.min; a tanh pooler."""

    def __init__(self, vocab=800, d=64, heads=4, layers=2):
        super().__init__()
        self.word, self.pos, self.tt = nn.Embedding(vocab, d), nn.Embedding(64, d), nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.h, self.dh = heads, d // heads
        self.layers = nn.ModuleList([nn.ModuleDict(dict(
            q=nn.Linear(d, d), k=nn.Linear(d, d), v=nn.Linear(d, d), o=nn.Linear(d, d),
            ln1=nn.LayerNorm(d, eps=1e-12), f1=nn.Linear(d, 4 * d), f2=nn.Linear(4 * d, d),
            ln2=nn.LayerNorm(d, eps=1e-12))) for _ in range(layers)])
        self.pool, self.cls = nn.Linear(d, d), nn.Linear(d, 3)

    def forward(self, ids, mask, types):
        b, t = ids.shape
        pos = torch.arange(t).unsqueeze(0)
        x = self.ln(self.word(ids) + self.pos(pos) + self.tt(types))
        ext = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        for L in self.layers:
            sh = lambda z: z.view(b, t, self.h, self.dh).transpose(1, 2)
            a = sh(L["q"](x)) @ sh(L["k"](x)).transpose(-1, -2) / math.sqrt(self.dh) + ext
            y = (a.softmax(-1) @ sh(L["v"](x))).transpose(1, 2).reshape(b, t, -1)
            x = L["ln1"](x + L["o"](y))
            x = L["ln2"](x + L["f2"](F.gelu(L["f1"](x))))
        return self.cls(torch.tanh(self.pool(x[:, 0])))


def bert_inputs(batch, gen, which=0):
    t = (16, 20)[which]
    ids = torch.randint(0, 800, (batch, t), generator=gen)
    mask = torch.ones(batch, t, dtype=torch.int64)
    mask[0, t - 5:] = 0
    types = torch.zeros(batch, t, dtype=torch.int64)
    types[:, t // 2:] = 1
    return ids, mask, types


class ClipLike(nn.Module):
    """Two towers, L2-normalised embeddings, logit_scale.exp() * cosines."""

    def __init__(self, vocab=300, d=64):
        super().__init__()
        self.img = nn.Sequential(nn.Conv2d(3, 32, 4, 4), nn.GELU(), nn.Conv2d(32, 64, 2, 2),
                                 nn.GELU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, d))
        self.tok = nn.Embedding(vocab, d)
        self.enc = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True,
                                              norm_first=True)
        self.tproj = nn.Linear(d, d, bias=False)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, image, text):
        i = F.normalize(self.img(image), dim=-1)
        h = self.enc(self.tok(text))
        eot = h[torch.arange(h.shape[0]), text.argmax(-1)]
        t = F.normalize(self.tproj(eot), dim=-1)
        return self.logit_scale.exp() * i @ t.t()


def clip_inputs(batch, gen, which=0):
    return (torch.randn(batch, 3, 32, 32, generator=gen),
            torch.randint(0, 300, (batch, 12), generator=gen))


class NBeats(nn.Module):
    """N-BEATS generic blocks: an MLP per block, backcast subtracted from
    the residual, forecasts summed."""

    def __init__(self, back=48, fore=12, width=128, blocks=4):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Sequential(
            nn.Linear(back, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
            nn.Linear(width, back + fore)) for _ in range(blocks)])
        self.back = back

    def forward(self, x):
        level = x.mean(-1, keepdim=True)
        r, f = x - level, 0
        for blk in self.blocks:
            out = blk(r)
            r = r - out[:, :self.back]
            f = f + out[:, self.back:]
        return f + level


def series(batch, gen, which=0):
    t = torch.arange(48).float()
    base_ = 100 + 20 * torch.sin(t / 5)
    return (base_ + torch.randn(batch, 48, generator=gen) * 3,)


class PointNet(nn.Module):
    """A T-net predicts a 3x3 transform (plus identity), shared 1x1
    Conv1d MLPs, a max over points, a classifier."""

    def __init__(self):
        super().__init__()
        def mlp(*w):
            layers = []
            for a, b in zip(w, w[1:]):
                layers += [nn.Conv1d(a, b, 1), nn.BatchNorm1d(b), nn.ReLU()]
            return nn.Sequential(*layers)
        self.tnet, self.tfc = mlp(3, 32, 64), nn.Linear(64, 9)
        self.feat = mlp(3, 32, 64, 128)
        self.head = nn.Sequential(nn.Linear(128, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 8))

    def forward(self, pts):
        t = self.tfc(self.tnet(pts).max(2)[0]).view(-1, 3, 3) + torch.eye(3)
        x = torch.bmm(t, pts)
        return self.head(self.feat(x).max(2)[0]).log_softmax(-1)


def points(batch, gen, which=0):
    return (torch.randn(batch, 3, 256 + 64 * which, generator=gen),)


class VAE(nn.Module):
    """Encoder to mu and logvar, z = mu + exp(logvar / 2) * eps (eps an
    input), a decoder to a sigmoid image; three outputs."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 4, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 4, 2, 1),
                                 nn.ReLU(), nn.Flatten())
        self.mu, self.lv = nn.Linear(32 * 64, 16), nn.Linear(32 * 64, 16)
        self.dec_fc = nn.Linear(16, 32 * 64)
        self.dec = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(),
                                 nn.ConvTranspose2d(16, 1, 4, 2, 1), nn.Sigmoid())

    def forward(self, x, eps):
        h = self.enc(x)
        mu, lv = self.mu(h), self.lv(h)
        z = mu + torch.exp(0.5 * lv) * eps
        return self.dec(self.dec_fc(z).view(-1, 32, 8, 8)), mu, lv


def vae_inputs(batch, gen, which=0):
    return torch.rand(batch, 1, 32, 32, generator=gen), torch.randn(batch, 16, generator=gen)


class Siamese(nn.Module):
    """A shared CNN over two images; Euclidean distance and cosine
    similarity of the embeddings."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
                                 nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 32))

    def forward(self, a, b):
        ea, eb = self.net(a), self.net(b)
        dist = torch.sqrt(((ea - eb) ** 2).sum(-1) + 1e-6)
        return torch.stack([dist, F.cosine_similarity(ea, eb, -1)], -1)


def pair(batch, gen, which=0):
    a = torch.randn(batch, 3, 32, 32, generator=gen)
    return a, a + 0.1 * torch.randn(batch, 3, 32, 32, generator=gen)


class MobileViTBlock(nn.Module):
    def __init__(self, c, d=48, p=2):
        super().__init__()
        self.p = p
        self.local = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1), nn.BatchNorm2d(c), nn.SiLU(),
                                   nn.Conv2d(c, d, 1))
        self.tf = nn.TransformerEncoderLayer(d, 4, 96, dropout=0.0, batch_first=True,
                                             norm_first=True, activation="gelu")
        self.proj = nn.Conv2d(d, c, 1)
        self.fuse = nn.Conv2d(2 * c, c, 3, 1, 1)

    def forward(self, x):
        y = self.local(x)
        b, d, h, w = y.shape
        p = self.p
        u = y.reshape(b, d, h // p, p, w // p, p).permute(0, 3, 5, 2, 4, 1)
        u = u.reshape(b * p * p, (h // p) * (w // p), d)
        u = self.tf(u)
        u = u.reshape(b, p, p, h // p, w // p, d).permute(0, 5, 3, 1, 4, 2).reshape(b, d, h, w)
        return self.fuse(torch.cat([x, self.proj(u)], 1))


class MobileViTLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.SiLU(),
                                  nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.SiLU())
        self.block = MobileViTBlock(32)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))

    def forward(self, x):
        return self.head(self.block(self.stem(x)))


class WhisperLike(nn.Module):
    """An encoder over mels (two Conv1d, GELU, sinusoidal positions) and a
    decoder over tokens: causal self-attention and cross-attention."""

    def __init__(self, d=64, vocab=200):
        super().__init__()
        self.c1, self.c2 = nn.Conv1d(40, d, 3, 1, 1), nn.Conv1d(d, d, 3, 2, 1)
        inv = torch.exp(-math.log(10000) * torch.arange(d // 2).float() / (d // 2 - 1))
        ang = torch.arange(200).float()[:, None] * inv[None]
        self.register_buffer("pos", torch.cat([ang.sin(), ang.cos()], 1))
        self.enc = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True,
                                              norm_first=True, activation="gelu")
        self.tok, self.tpos = nn.Embedding(vocab, d), nn.Embedding(32, d)
        self.dec = nn.TransformerDecoderLayer(d, 4, 128, dropout=0.0, batch_first=True,
                                              norm_first=True, activation="gelu")
        self.ln = nn.LayerNorm(d)

    def forward(self, mel, toks):
        h = F.gelu(self.c2(F.gelu(self.c1(mel)))).transpose(1, 2)
        h = self.enc(h + self.pos[:h.shape[1]])
        t = toks.shape[1]
        y = self.tok(toks) + self.tpos(torch.arange(t))
        mask = torch.full((t, t), float("-inf")).triu(1)
        y = self.dec(y, h, tgt_mask=mask)
        return self.ln(y) @ self.tok.weight.t()


def whisper_inputs(batch, gen, which=0):
    return (torch.randn(batch, 40, 60, generator=gen),
            torch.randint(0, 200, (batch, 8), generator=gen))


class KerasStyle(nn.Module):
    """What a Keras-to-ONNX converter writes: NHWC input transposed,
    LayerNorm spelled out (mean, variance, sqrt, divide), a softmax spelled
    out without subtracting the max, explicit MatMul + Add."""

    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = nn.Conv2d(3, 32, 3, 2, 1), nn.Conv2d(32, 64, 3, 2, 1)
        self.g, self.b = nn.Parameter(torch.ones(64)), nn.Parameter(torch.zeros(64))
        self.w1 = nn.Parameter(torch.randn(64, 64) / 8)
        self.b1 = nn.Parameter(torch.zeros(64))
        self.w2 = nn.Parameter(torch.randn(64, 10) / 8)

    def forward(self, x):
        x = x.permute(0, 3, 1, 2)
        x = F.relu(self.conv2(F.relu(self.conv1(x)))).permute(0, 2, 3, 1)
        mu = x.mean(-1, keepdim=True)
        var = ((x - mu) * (x - mu)).mean(-1, keepdim=True)
        x = (x - mu) / torch.sqrt(var + 1e-3) * self.g + self.b
        x = x.mean((1, 2))
        x = F.relu(x @ self.w1 + self.b1) @ self.w2
        e = torch.exp(x)
        return e / e.sum(-1, keepdim=True)


def nhwc(batch, gen, which=0):
    return (torch.randn(batch, 32, 32, 3, generator=gen),)


class LinearAttention(nn.Module):
    """Causal linear attention: elu + 1 features, CumSum of k v^T and of k,
    a division by the running normaliser."""

    def __init__(self, vocab=400, d=32, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.qkv = nn.ModuleList([nn.Linear(d, 3 * d) for _ in range(layers)])
        self.ln = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.emb(ids)
        for qkv, ln in zip(self.qkv, self.ln):
            q, k, v = qkv(ln(x)).chunk(3, -1)
            q, k = F.elu(q) + 1, F.elu(k) + 1
            kv = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), 1)
            num = (q.unsqueeze(-2) @ kv).squeeze(-2)
            den = (q * torch.cumsum(k, 1)).sum(-1, keepdim=True)
            x = x + num / den
        return self.head(x)


class Tabular(nn.Module):
    """Unscaled numeric features (prices up to 2e5), categorical
    embeddings, BatchNorm1d on the raw numbers, a residual MLP."""

    def __init__(self):
        super().__init__()
        self.cats = nn.ModuleList([nn.Embedding(n, 8) for n in (20, 7, 100)])
        self.bn = nn.BatchNorm1d(6)
        self.fc1, self.fc2, self.fc3 = nn.Linear(6 + 24, 64), nn.Linear(64, 64), nn.Linear(64, 2)

    def forward(self, num, cat):
        x = torch.cat([self.bn(num)] + [e(cat[:, i]) for i, e in enumerate(self.cats)], 1)
        h = F.relu(self.fc1(x))
        h = h + F.relu(self.fc2(h))
        return self.fc3(h)


def tabular_inputs(batch, gen, which=0):
    scale = torch.tensor([2e5, 1e3, 50.0, 1.0, 0.01, 3e4])
    num = torch.rand(batch, 6, generator=gen) * scale
    cat = torch.stack([torch.randint(0, n, (batch,), generator=gen) for n in (20, 7, 100)], 1)
    return num, cat


class GCN(nn.Module):
    """Two graph convolutions: D^-1/2 (A + I) D^-1/2 X W, the degree's
    inverse square root computed in the model; a mean readout."""

    def __init__(self, f=16, h=32):
        super().__init__()
        self.w1, self.w2, self.out = nn.Linear(f, h), nn.Linear(h, h), nn.Linear(h, 4)

    def forward(self, x, adj):
        a = adj + torch.eye(adj.shape[-1])
        d = a.sum(-1).pow(-0.5)
        a = d.unsqueeze(-1) * a * d.unsqueeze(-2)
        x = F.relu(a @ self.w1(x))
        x = F.relu(a @ self.w2(x))
        return self.out(x.mean(1))


def graph_inputs(batch, gen, which=0):
    n = 24 + 8 * which
    adj = (torch.rand(batch, n, n, generator=gen) < 0.15).float()
    adj = ((adj + adj.transpose(1, 2)) > 0).float()
    return torch.randn(batch, n, 16, generator=gen), adj


class PoolFormer(nn.Module):
    """PoolFormer blocks: GroupNorm(1), AvgPool(x) - x token mixing,
    a 1x1-conv MLP, layer scale."""

    def __init__(self, c=48):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 4, 4)
        self.blocks = nn.ModuleList([nn.ModuleDict(dict(
            n1=nn.GroupNorm(1, c), n2=nn.GroupNorm(1, c),
            mlp=nn.Sequential(nn.Conv2d(c, 4 * c, 1), nn.GELU(), nn.Conv2d(4 * c, c, 1))))
            for _ in range(3)])
        self.s1 = nn.ParameterList([nn.Parameter(torch.full((c, 1, 1), 1e-2)) for _ in range(3)])
        self.head = nn.Linear(c, 10)

    def forward(self, x):
        x = self.stem(x)
        for blk, s in zip(self.blocks, self.s1):
            y = blk["n1"](x)
            x = x + s * (F.avg_pool2d(y, 3, 1, 1, count_include_pad=False) - y)
            x = x + s * blk["mlp"](blk["n2"](x))
        return self.head(x.mean((2, 3)))


class Seq2SeqAttn(nn.Module):
    """An LSTM encoder, a GRU-cell decoder unrolled for 6 steps with
    additive (Bahdanau) attention, greedy feeding of its own argmax."""

    def __init__(self, vocab=300, d=48):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.enc = nn.LSTM(d, d, batch_first=True)
        self.cell = nn.GRUCell(2 * d, d)
        self.wa, self.ua, self.va = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, 1)
        self.out = nn.Linear(d, vocab)

    def forward(self, ids):
        mem, (h, _) = self.enc(self.emb(ids))
        h = h[0]
        y = torch.zeros_like(h)
        logits = []
        keys = self.ua(mem)
        for _ in range(6):
            score = self.va(torch.tanh(self.wa(h).unsqueeze(1) + keys)).softmax(1)
            ctx = (score * mem).sum(1)
            h = self.cell(torch.cat([y, ctx], -1), h)
            lo = self.out(h)
            logits.append(lo)
            y = self.emb(lo.argmax(-1))
        return torch.stack(logits, 1)


class AlibiEncoder(nn.Module):
    """Attention biased by ALiBi: per-head slopes times the distance
    matrix built from arange of the sequence length; key padding mask with
    masked_fill(-inf)."""

    def __init__(self, vocab=500, d=64, h=4):
        super().__init__()
        self.emb, self.h, self.dh = nn.Embedding(vocab, d), h, d // h
        self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.register_buffer("slopes", torch.tensor([2 ** (-8 * (i + 1) / h) for i in range(h)]))
        self.head = nn.Linear(d, 5)

    def forward(self, ids):
        b, t = ids.shape
        x = self.emb(ids)
        pos = torch.arange(t)
        dist = (pos[None, :] - pos[:, None]).abs().float()
        bias = -self.slopes[:, None, None] * dist
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
        s = q @ k.transpose(-1, -2) / math.sqrt(self.dh) + bias
        s = s.masked_fill((ids == 0)[:, None, None, :], float("-inf"))
        x = x + self.o((s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, -1))
        x = x + self.ff(self.ln2(x))
        return self.head(x.mean(1))


def ids_with_padding(batch, gen, which=0):
    t = (16, 20)[which]
    ids = torch.randint(1, 500, (batch, t), generator=gen)
    ids[0, -3:] = 0
    return (ids,)


class GlobalLayerNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.g, self.b = nn.Parameter(torch.ones(1, c, 1)), nn.Parameter(torch.zeros(1, c, 1))

    def forward(self, x):
        mean = x.mean((1, 2), keepdim=True)
        var = ((x - mean) ** 2).mean((1, 2), keepdim=True)
        return self.g * (x - mean) / torch.sqrt(var + 1e-8) + self.b


class ConvTasNet(nn.Module):
    """Conv-TasNet: a strided Conv1d encoder, depthwise-separable TCN blocks
    with PReLU and global layer norm, sigmoid masks for two sources, a
    ConvTranspose1d decoder back to waveforms."""

    def __init__(self, n=64, b=32, h=64):
        super().__init__()
        self.enc = nn.Conv1d(1, n, 16, 8, bias=False)
        self.norm, self.bottle = GlobalLayerNorm(n), nn.Conv1d(n, b, 1)
        self.blocks = nn.ModuleList()
        for i in range(4):
            d = 2 ** i
            self.blocks.append(nn.Sequential(
                nn.Conv1d(b, h, 1), nn.PReLU(), GlobalLayerNorm(h),
                nn.Conv1d(h, h, 3, padding=d, dilation=d, groups=h), nn.PReLU(),
                GlobalLayerNorm(h), nn.Conv1d(h, b, 1)))
        self.mask = nn.Conv1d(b, 2 * n, 1)
        self.dec = nn.ConvTranspose1d(n, 1, 16, 8, bias=False)

    def forward(self, wav):
        w = F.relu(self.enc(wav))
        y = self.bottle(self.norm(w))
        for blk in self.blocks:
            y = y + blk(y)
        m = torch.sigmoid(self.mask(y)).view(wav.shape[0], 2, w.shape[1], -1)
        s = (w.unsqueeze(1) * m).view(wav.shape[0] * 2, w.shape[1], -1)
        return self.dec(s).view(wav.shape[0], 2, -1)


def wav(batch, gen, which=0):
    return (torch.randn(batch, 1, 2000 + 400 * which, generator=gen) * 0.3,)


class BiFPNLike(nn.Module):
    """EfficientDet's fast normalised fusion: relu(w) / (sum + eps) of
    learned weights, computed in the graph, over resized feature maps."""

    def __init__(self, c=32):
        super().__init__()
        self.s1 = nn.Sequential(nn.Conv2d(3, c, 3, 2, 1), nn.BatchNorm2d(c), nn.SiLU())
        self.s2 = nn.Sequential(nn.Conv2d(c, c, 3, 2, 1), nn.BatchNorm2d(c), nn.SiLU())
        self.s3 = nn.Sequential(nn.Conv2d(c, c, 3, 2, 1), nn.BatchNorm2d(c), nn.SiLU())
        self.w_td = nn.Parameter(torch.tensor([1.0, 0.5]))
        self.w_out = nn.Parameter(torch.tensor([0.8, 1.2, 0.3]))
        self.dw = nn.Conv2d(c, c, 3, 1, 1, groups=c)
        self.head = nn.Conv2d(c, 9, 1)

    def forward(self, x):
        p3 = self.s1(x)
        p4 = self.s2(p3)
        p5 = self.s3(p4)
        w = F.relu(self.w_td)
        w = w / (w.sum() + 1e-4)
        td = self.dw(w[0] * p4 + w[1] * F.interpolate(p5, scale_factor=2.0, mode="nearest"))
        v = F.relu(self.w_out)
        v = v / (v.sum() + 1e-4)
        out = self.dw(v[0] * p4 + v[1] * td + v[2] * F.max_pool2d(p3, 3, 2, 1))
        return self.head(out).flatten(2)


class MoELike(nn.Module):
    """A mixture of experts: softmax router, top-2 experts per token,
    their weights renormalised, a dense sum over experts masked by a
    scatter of the chosen ones."""

    def __init__(self, vocab=400, d=48, experts=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.router = nn.Linear(d, experts)
        self.w1 = nn.Parameter(torch.randn(experts, d, 96) / math.sqrt(d))
        self.w2 = nn.Parameter(torch.randn(experts, 96, d) / math.sqrt(96))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.emb(ids)
        p = self.router(x).softmax(-1)
        top, idx = p.topk(2, -1)
        gate = torch.zeros_like(p).scatter(-1, idx, top / top.sum(-1, keepdim=True))
        h = F.gelu(torch.einsum("btd,edf->btef", x, self.w1))
        y = torch.einsum("btef,efd->bted", h, self.w2)
        x = x + (gate.unsqueeze(-1) * y).sum(2)
        return self.head(self.ln(x))


class GPTKVCache(nn.Module):
    """One decoding step of a GPT-2-like decoder with a KV cache: past
    keys and values are inputs (dynamic past length), the new token's
    keys/values are concatenated and returned as presents."""

    def __init__(self, vocab=300, d=64, h=4, layers=2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(128, d)
        self.h, self.dh = h, d // h
        self.ln1 = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.attn = nn.ModuleList([nn.Linear(d, 3 * d) for _ in range(layers)])
        self.proj = nn.ModuleList([nn.Linear(d, d) for _ in range(layers)])
        self.ln2 = nn.ModuleList([nn.LayerNorm(d) for _ in range(layers)])
        self.mlp = nn.ModuleList([nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"),
                                                nn.Linear(4 * d, d)) for _ in range(layers)])
        self.lnf = nn.LayerNorm(d)

    def forward(self, ids, past_k, past_v):
        b = ids.shape[0]
        pos = past_k.shape[3] + torch.zeros_like(ids)
        x = self.wte(ids) + self.wpe(pos)
        ks, vs = [], []
        for i in range(len(self.attn)):
            q, k, v = self.attn[i](self.ln1[i](x)).view(b, 1, 3, self.h, self.dh).permute(2, 0, 3, 1, 4)
            k = torch.cat([past_k[:, i], k], 2)
            v = torch.cat([past_v[:, i], v], 2)
            ks.append(k)
            vs.append(v)
            a = (q @ k.transpose(-1, -2) / math.sqrt(self.dh)).softmax(-1) @ v
            x = x + self.proj[i](a.transpose(1, 2).reshape(b, 1, -1))
            x = x + self.mlp[i](self.ln2[i](x))
        return self.lnf(x) @ self.wte.weight.t(), torch.stack(ks, 1), torch.stack(vs, 1)


def kv_inputs(batch, gen, which=0):
    t = (10, 14)[which]
    return (torch.randint(0, 300, (batch, 1), generator=gen),
            torch.randn(batch, 2, 4, t, 16, generator=gen),
            torch.randn(batch, 2, 4, t, 16, generator=gen))


class DiffusionBlock(nn.Module):
    """A diffusion U-Net's block: sinusoidal embedding of the timestep
    (up to 1000), GroupNorm, SiLU, the time embedding added per channel,
    self-attention over pixels, cross-attention to a text context."""

    def __init__(self, c=32, ctx=48):
        super().__init__()
        self.inp = nn.Conv2d(4, c, 3, 1, 1)
        self.temb = nn.Sequential(nn.Linear(32, 64), nn.SiLU(), nn.Linear(64, c))
        self.n1, self.c1 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, 1, 1)
        self.n2, self.c2 = nn.GroupNorm(8, c), nn.Conv2d(c, c, 3, 1, 1)
        self.na = nn.GroupNorm(8, c)
        self.selfa = nn.MultiheadAttention(c, 4, batch_first=True)
        self.cross = nn.MultiheadAttention(c, 4, kdim=ctx, vdim=ctx, batch_first=True)
        self.out = nn.Conv2d(c, 4, 3, 1, 1)

    def forward(self, x, t, context):
        half = 16
        freqs = torch.exp(-math.log(10000) * torch.arange(half).float() / half)
        arg = t[:, None] * freqs[None]
        emb = self.temb(torch.cat([arg.sin(), arg.cos()], -1))
        h = self.inp(x)
        r = self.c1(F.silu(self.n1(h))) + emb[:, :, None, None]
        h = h + self.c2(F.silu(self.n2(r)))
        b, c, hh, ww = h.shape
        s = self.na(h).flatten(2).transpose(1, 2)
        s = s + self.selfa(s, s, s, need_weights=False)[0]
        s = s + self.cross(s, context, context, need_weights=False)[0]
        h = h + s.transpose(1, 2).reshape(b, c, hh, ww)
        return self.out(F.silu(h))


def diffusion_inputs(batch, gen, which=0):
    return (torch.randn(batch, 4, 16, 16, generator=gen),
            torch.randint(0, 1000, (batch,), generator=gen).float(),
            torch.randn(batch, 7, 48, generator=gen))


class NeRFMLP(nn.Module):
    """NeRF's MLP: positional encoding sin/cos(2^k pi x) for k < 10 of 3-D
    points in [-1.5, 1.5], eight ReLU layers with a skip, density and colour."""

    def __init__(self, w=128, freqs=10):
        super().__init__()
        self.register_buffer("bands", (2.0 ** torch.arange(freqs)) * math.pi)
        d = 3 + 6 * freqs
        self.l1 = nn.ModuleList([nn.Linear(d, w)] + [nn.Linear(w, w) for _ in range(3)])
        self.l2 = nn.ModuleList([nn.Linear(w + d, w)] + [nn.Linear(w, w) for _ in range(3)])
        self.sigma, self.rgb = nn.Linear(w, 1), nn.Linear(w, 3)

    def forward(self, pts):
        a = pts[..., None] * self.bands
        enc = torch.cat([pts, a.sin().flatten(-2), a.cos().flatten(-2)], -1)
        h = enc
        for l in self.l1:
            h = F.relu(l(h))
        h = torch.cat([h, enc], -1)
        for l in self.l2:
            h = F.relu(l(h))
        return torch.cat([F.softplus(self.sigma(h)), torch.sigmoid(self.rgb(h))], -1)


def rays(batch, gen, which=0):
    return ((torch.rand(batch, 256, 3, generator=gen) - 0.5) * 3,)


class CaptionLSTM(nn.Module):
    """Show-and-tell: a CNN encodes the image into the LSTM's first input,
    the caption tokens follow (teacher forcing), a softmax per step."""

    def __init__(self, vocab=300, d=64):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                                 nn.Conv2d(32, d, 3, 2, 1), nn.BatchNorm2d(d), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.emb = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, d, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, image, caption):
        seq = torch.cat([self.cnn(image).unsqueeze(1), self.emb(caption)], 1)
        return self.out(self.lstm(seq)[0]).log_softmax(-1)


def caption_inputs(batch, gen, which=0):
    return (torch.randn(batch, 3, 32, 32, generator=gen),
            torch.randint(0, 300, (batch, (8, 11)[which]), generator=gen))


class HRNetLike(nn.Module):
    """Two resolutions in parallel, exchanged by strided conv and bilinear
    up-sampling (align_corners=True), a heatmap head."""

    def __init__(self, c=24):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, 2, 1), nn.BatchNorm2d(c), nn.ReLU())
        self.down = nn.Sequential(nn.Conv2d(c, 2 * c, 3, 2, 1), nn.BatchNorm2d(2 * c), nn.ReLU())
        self.hi = nn.ModuleList([nn.Sequential(nn.Conv2d(c, c, 3, 1, 1), nn.BatchNorm2d(c), nn.ReLU())
                                 for _ in range(2)])
        self.lo = nn.ModuleList([nn.Sequential(nn.Conv2d(2 * c, 2 * c, 3, 1, 1),
                                               nn.BatchNorm2d(2 * c), nn.ReLU()) for _ in range(2)])
        self.up = nn.ModuleList([nn.Conv2d(2 * c, c, 1) for _ in range(2)])
        self.dn = nn.ModuleList([nn.Conv2d(c, 2 * c, 3, 2, 1) for _ in range(2)])
        self.head = nn.Conv2d(c, 8, 1)

    def forward(self, x):
        h = self.stem(x)
        l = self.down(h)
        for i in range(2):
            h2, l2 = self.hi[i](h), self.lo[i](l)
            h = F.relu(h2 + F.interpolate(self.up[i](l2), size=h2.shape[2:], mode="bilinear",
                                          align_corners=True))
            l = F.relu(l2 + self.dn[i](h2))
        return self.head(h)


class WSConv(nn.Conv2d):
    def forward(self, x):
        w = self.weight
        m = w.mean((1, 2, 3), keepdim=True)
        v = w.var((1, 2, 3), keepdim=True, unbiased=False)
        return F.conv2d(x, (w - m) / torch.sqrt(v + 1e-10), self.bias, self.stride, self.padding)


class PerceiverLike(nn.Module):
    """Learned latents expanded to the batch, cross-attention from the
    latents to the inputs, latent self-attention, a mean readout."""

    def __init__(self, d=64, n=16):
        super().__init__()
        self.latents = nn.Parameter(torch.randn(n, d) * 0.5)
        self.inp = nn.Linear(12, d)
        self.cross = nn.MultiheadAttention(d, 4, batch_first=True)
        self.selfa = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True)
        self.head = nn.Linear(d, 6)

    def forward(self, x):
        kv = self.inp(x)
        lat = self.latents.unsqueeze(0).expand(x.shape[0], -1, -1)
        lat = lat + self.cross(lat, kv, kv, need_weights=False)[0]
        return self.head(self.selfa(lat).mean(1))


def point_features(batch, gen, which=0):
    return (torch.randn(batch, 50, 12, generator=gen),)


class STN(nn.Module):
    """A spatial transformer: a localisation CNN predicts an affine
    transform (initialised to the identity), affine_grid + grid_sample
    resample the input, a classifier reads the result."""

    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(nn.Conv2d(1, 8, 5, 2), nn.ReLU(), nn.Conv2d(8, 10, 5, 2),
                                 nn.ReLU(), nn.Flatten(), nn.Linear(10 * 4 * 4, 6))
        nn.init.normal_(self.loc[-1].weight, std=0.01)
        self.loc[-1].bias.data = torch.tensor([1.0, 0, 0, 0, 1.0, 0])
        self.cls = nn.Sequential(nn.Conv2d(1, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1),
                                 nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))

    def forward(self, x):
        theta = self.loc(x).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return self.cls(F.grid_sample(x, grid, align_corners=False))


class BiTLike(nn.Module):
    """BiT's ResNet: weight-standardised convolutions (the standardisation
    is in the graph, on the weights), GroupNorm, pre-activation blocks."""

    def __init__(self, c=32):
        super().__init__()
        self.stem = WSConv(3, c, 3, 2, 1)
        self.blocks = nn.ModuleList([nn.ModuleDict(dict(
            n1=nn.GroupNorm(8, c), c1=WSConv(c, c, 3, 1, 1),
            n2=nn.GroupNorm(8, c), c2=WSConv(c, c, 3, 1, 1))) for _ in range(3)])
        self.norm, self.head = nn.GroupNorm(8, c), nn.Linear(c, 10)

    def forward(self, x):
        x = self.stem(x)
        for b in self.blocks:
            x = x + b["c2"](F.relu(b["n2"](b["c1"](F.relu(b["n1"](x))))))
        return self.head(F.relu(self.norm(x)).mean((2, 3)))


class PixelCNN(nn.Module):
    """Masked convolutions (weights times a constant causal mask), gated
    tanh * sigmoid units, a 256-way softmax per pixel."""

    def __init__(self, c=32):
        super().__init__()
        def mask(k, first):
            m = torch.ones(k, k)
            m[k // 2, k // 2 + (0 if first else 1):] = 0
            m[k // 2 + 1:] = 0
            return m
        self.register_buffer("ma", mask(7, True))
        self.register_buffer("mb", mask(3, False))
        self.c0 = nn.Conv2d(1, 2 * c, 7, 1, 3)
        self.cs = nn.ModuleList([nn.Conv2d(c, 2 * c, 3, 1, 1) for _ in range(3)])
        self.out = nn.Conv2d(c, 256, 1)

    def forward(self, x):
        h = F.conv2d(x, self.c0.weight * self.ma, self.c0.bias, padding=3)
        a, g = h.chunk(2, 1)
        h = torch.tanh(a) * torch.sigmoid(g)
        for conv in self.cs:
            a, g = F.conv2d(h, conv.weight * self.mb, conv.bias, padding=1).chunk(2, 1)
            h = h + torch.tanh(a) * torch.sigmoid(g)
        return self.out(h).log_softmax(1)


class LogMelKWS(nn.Module):
    """A keyword spotter with its front end in the graph: torch.stft (ONNX
    STFT) with a Hann window, power, a mel filter bank (a MatMul by a
    buffer), log, then a small CNN. Exports through dynamo only (the
    TorchScript exporter has no complex STFT)."""

    def __init__(self, n_fft=256, hop=128, n_mels=32, classes=12, rate=16000):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        bins = n_fft // 2 + 1
        mel = torch.linspace(0, 2595 * math.log10(1 + rate / 2 / 700), n_mels + 2)
        hz = 700 * (10 ** (mel / 2595) - 1)
        freqs = torch.linspace(0, rate / 2, bins)[:, None]
        lo, mid, hi = hz[:-2], hz[1:-1], hz[2:]
        self.register_buffer("filters", torch.clamp(
            torch.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid)), min=0))
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, classes))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
        power = spec.real ** 2 + spec.imag ** 2
        mel = torch.log(power.transpose(1, 2) @ self.filters + 1e-6)
        return self.net(mel.unsqueeze(1))


class GlobalFilterNet(nn.Module):
    """GFNet's token mixing: rfft2 over the patch grid (ONNX DFT, onesided),
    a learned complex filter, irfft2 (inverse onesided DFT), a residual and
    an MLP. Dynamo only (the TorchScript exporter has no fft)."""

    def __init__(self, grid=8, dim=32, classes=10):
        super().__init__()
        self.stem = nn.Conv2d(3, dim, 4, 4)
        self.filter = nn.Parameter(torch.randn(grid, grid // 2 + 1, dim, 2) * 0.02)
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.stem(x).permute(0, 2, 3, 1)
        y = torch.fft.rfft2(self.norm1(x), dim=(1, 2), norm="ortho")
        y = y * torch.view_as_complex(self.filter)
        x = x + torch.fft.irfft2(y, s=x.shape[1:3], dim=(1, 2), norm="ortho")
        x = x + self.mlp(self.norm2(x))
        return self.head(x.mean((1, 2)))


class RaftSmall(nn.Module):
    """RAFT's small optical-flow model: feature and context encoders, a
    correlation pyramid read back with grid_sample, and three recurrent
    (ConvGRU) updates; the last flow estimate."""

    def __init__(self):
        super().__init__()
        self.model = optical_flow.raft_small(weights=None)

    def forward(self, a, b):
        return self.model(a, b, num_flow_updates=3)[-1]


def flow_pair(batch, gen, which=0):
    # RAFT needs feature maps of at least 16 x 16: images of 128 and more.
    size = (128, 144)[which]
    return (torch.randn(batch, 3, size, size, generator=gen),
            torch.randn(batch, 3, size, size, generator=gen))


def waveforms_of(length):
    """Waveforms of `length` samples (set 1: 800 more). Not `waveform`,
    which wav2vec_like's entry names."""
    def make(batch, gen, which=0):
        return (torch.randn(batch, length + 800 * which, generator=gen),)
    return make


BATCH_SEQ = {"batch": 0}
TOKENS = {"batch": 0, "length": 1}

# name: (constructor, input maker, dynamic axes per input, opset). An input
# maker takes (batch, generator, which set); the sequence models' sets also
# differ in length.
ZOO = {
    "squeezenet1_1": (lambda: tvm.squeezenet1_1(num_classes=10), images(64), [BATCH_SEQ], 13),
    "shufflenet_v2": (lambda: tvm.shufflenet_v2_x0_5(num_classes=10), images(64), [BATCH_SEQ], 13),
    "efficientnet_b0": (lambda: tvm.efficientnet_b0(num_classes=10), images(64), [BATCH_SEQ], 15),
    "regnet_x_400mf": (lambda: tvm.regnet_x_400mf(num_classes=10), images(64), [BATCH_SEQ], 17),
    "densenet121": (lambda: tvm.densenet121(num_classes=10), images(64), [BATCH_SEQ], 13),
    "mnasnet0_5": (lambda: tvm.mnasnet0_5(num_classes=10), images(64), [BATCH_SEQ], 15),
    "googlenet": (lambda: tvm.googlenet(num_classes=10, aux_logits=False, init_weights=True),
                  images(64), [BATCH_SEQ], 17),
    "mobilenet_v3_small": (lambda: tvm.mobilenet_v3_small(num_classes=10), images(64),
                           [BATCH_SEQ], 17),
    "resnet34": (lambda: tvm.resnet34(num_classes=10), images(64), [BATCH_SEQ], 15),
    "convnext_mini": (convnext, images(64), [BATCH_SEQ], 17),
    "unet_mini": (TinyUNet, images(32), [BATCH_SEQ], 13),
    "vit_mini": (vit, images(32), [BATCH_SEQ], 17),
    "swin_mini": (swin, images(32), [BATCH_SEQ], 17),
    "mlp_mixer": (MLPMixer, images(32), [BATCH_SEQ], 13),
    "distilbert_like": (EncoderClassifier, tokens(1000), [TOKENS], 14),
    "gpt2_like": (GPTLike, tokens(512), [TOKENS], 17),
    "t5_like_encoder": (T5LikeEncoder, tokens(512), [TOKENS], 17),
    "gru_text": (RecurrentClassifier, tokens(1000), [TOKENS], 13),
    "lstm_lm": (LSTMLanguageModel, tokens(400), [TOKENS], 15),
    "audio_cnn": (AudioCNN, audio(4000), [{"batch": 0, "samples": 2}], 13),
    "conformer_like": (ConformerLike, mels(50), [{"batch": 0, "frames": 2}], 17),
    "crnn_ctc": (CRNN, text_line, [{"batch": 0, "width": 3}], 13),
    # Added 2026-12-04 (docs/precision.md, "Fourteen more architectures").
    "mobilenet_v3_large": (lambda: tvm.mobilenet_v3_large(num_classes=10), images(64),
                           [BATCH_SEQ], 17),
    "regnet_y_400mf": (lambda: tvm.regnet_y_400mf(num_classes=10), images(64), [BATCH_SEQ], 15),
    "resnext50": (lambda: tvm.resnext50_32x4d(num_classes=10), images(64), [BATCH_SEQ], 13),
    "efficientnet_v2_s": (lambda: tvm.efficientnet_v2_s(num_classes=10), images(64),
                          [BATCH_SEQ], 17),
    "shufflenet_v2_1_0": (lambda: tvm.shufflenet_v2_x1_0(num_classes=10), images(64),
                          [BATCH_SEQ], 15),
    "squeezenet1_0": (lambda: tvm.squeezenet1_0(num_classes=10), images(64), [BATCH_SEQ], 13),
    "mnasnet1_0": (lambda: tvm.mnasnet1_0(num_classes=10), images(64), [BATCH_SEQ], 13),
    "espcn": (ESPCN, images(32, channels=1), [BATCH_SEQ], 13),
    "style_net": (StyleNet, images(32), [BATCH_SEQ], 13),
    "tcn": (TCN, audio(1200), [{"batch": 0, "samples": 2}], 13),
    "bilstm": (BiLSTMClassifier, tokens(800), [TOKENS], 14),
    "torch_encoder": (TorchEncoder, tokens(600, lengths=(16, 16)), [BATCH_SEQ], 17),
    "groupnorm_net": (GroupNormNet, images(32), [BATCH_SEQ], 18),
    "autoencoder": (AutoEncoder, images(32, channels=1), [BATCH_SEQ], 13),
    # Added in session 27 (docs/precision.md, "Thirteen more architectures").
    "yolo_like": (YoloLike, images(64), [BATCH_SEQ], 17),
    "wav2vec_like": (Wav2VecLike, waveform, [BATCH_SEQ], 17),
    "dlrm_like": (DLRMLike, dlrm_inputs, [BATCH_SEQ, BATCH_SEQ], 13),
    "act_zoo": (ActZoo, images(32), [BATCH_SEQ], 12),
    "deeplabv3_mnv3": (lambda: SegmentationOut(seg.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=5, aux_loss=False)),
        images(64), [BATCH_SEQ], 13),
    "lraspp_mnv3": (lambda: SegmentationOut(seg.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=4)), images(64), [BATCH_SEQ], 11),
    "r3d_18": (lambda: video.r3d_18(num_classes=10), clip, [BATCH_SEQ], 13),
    "inception_v3": (lambda: tvm.inception_v3(num_classes=10, aux_logits=False,
                                              init_weights=True), images(80), [BATCH_SEQ], 13),
    "swin_v2_t": (lambda: tvm.swin_v2_t(num_classes=10), images(64), [BATCH_SEQ], 17),
    "efficientnet_b3": (lambda: tvm.efficientnet_b3(num_classes=10), images(64), [BATCH_SEQ], 15),
    "resnet50_op9": (lambda: tvm.resnet50(num_classes=10), images(64), [BATCH_SEQ], 9),
    "regnet_y_800mf": (lambda: tvm.regnet_y_800mf(num_classes=10), images(64), [BATCH_SEQ], 16),
    "mobilenet_v2_op10": (lambda: tvm.mobilenet_v2(num_classes=10, width_mult=0.75),
                          images(64), [BATCH_SEQ], 10),
    # Added in session 28 (docs/precision.md, "Twenty-six more architectures").
    "llama_like": (LlamaLike, tokens(500), [TOKENS], 17),
    "hf_bert": (HFBert, bert_inputs, [TOKENS, TOKENS, TOKENS], 14),
    "clip_like": (ClipLike, clip_inputs, [BATCH_SEQ, BATCH_SEQ], 14),
    "nbeats": (NBeats, series, [BATCH_SEQ], 13),
    "pointnet": (PointNet, points, [{"batch": 0, "points": 2}], 13),
    "vae": (VAE, vae_inputs, [BATCH_SEQ, BATCH_SEQ], 13),
    "siamese": (Siamese, pair, [BATCH_SEQ, BATCH_SEQ], 13),
    "mobilevit_like": (MobileViTLike, images(32), [BATCH_SEQ], 17),
    "whisper_like": (WhisperLike, whisper_inputs, [BATCH_SEQ, BATCH_SEQ], 17),
    "keras_style": (KerasStyle, nhwc, [BATCH_SEQ], 13),
    "linear_attention": (LinearAttention, tokens(400), [TOKENS], 14),
    "tabular": (Tabular, tabular_inputs, [BATCH_SEQ, BATCH_SEQ], 13),
    "gcn": (GCN, graph_inputs, [{"batch": 0, "nodes": 1}, {"batch": 0, "nodes": 1, "n2": 2}], 13),
    "poolformer": (PoolFormer, images(32), [BATCH_SEQ], 13),
    "seq2seq_attn": (Seq2SeqAttn, tokens(300), [TOKENS], 13),
    "alibi_encoder": (AlibiEncoder, ids_with_padding, [TOKENS], 14),
    "conv_tasnet": (ConvTasNet, wav, [{"batch": 0, "samples": 2}], 13),
    "bifpn_like": (BiFPNLike, images(64), [BATCH_SEQ], 13),
    "moe_like": (MoELike, tokens(400), [TOKENS], 14),
    "gpt_kv_cache": (GPTKVCache, kv_inputs, [BATCH_SEQ, {"batch": 0, "past": 3},
                                            {"batch": 0, "past": 3}], 14),
    "diffusion_block": (DiffusionBlock, diffusion_inputs, [BATCH_SEQ, BATCH_SEQ, BATCH_SEQ], 17),
    "nerf_mlp": (NeRFMLP, rays, [BATCH_SEQ], 13),
    "caption_lstm": (CaptionLSTM, caption_inputs, [BATCH_SEQ, TOKENS], 13),
    "hrnet_like": (HRNetLike, images(64), [BATCH_SEQ], 13),
    "bit_like": (BiTLike, images(32), [BATCH_SEQ], 13),
    "perceiver_like": (PerceiverLike, point_features, [BATCH_SEQ], 14),
    "stn": (STN, images(28, channels=1), [BATCH_SEQ], 20),
    "pixelcnn": (PixelCNN, lambda b, g, w=0: (torch.rand(b, 1, 16, 16, generator=g),), [BATCH_SEQ], 13),
    # Added in session 47 (docs/precision.md, "Six more HuggingFace families").
    "maxvit_t": (lambda: tvm.maxvit_t(num_classes=10), images(224), [BATCH_SEQ], 17),
    "r2plus1d_18": (lambda: video.r2plus1d_18(num_classes=10), clip, [BATCH_SEQ], 17),
    "raft_small": (RaftSmall, flow_pair, [{"batch": 0, "h": 2, "w": 3}] * 2, 17),
}

# Models only torch's dynamo exporter exports (make-zoo.py --dynamo): the
# signal ops (ONNX DFT and STFT, opset 17).
DYNAMO_ZOO = {
    "logmel_kws": (LogMelKWS, waveforms_of(4000), [{"batch": 0, "samples": 1}], 18),
    "gfnet_like": (GlobalFilterNet, images(32), [BATCH_SEQ], 18),
}
