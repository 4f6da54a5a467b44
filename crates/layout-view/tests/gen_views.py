# Extra get_layout_view cases from Triton 3.9 (random surjective linear layouts).
# Regenerate: python3 crates/layout-view/tests/gen_views.py 11 out.jsonl 150; head -100 out.jsonl > tests/data/triton-oracle/generated-layout-views.jsonl
# (needs pip install triton==3.9.0; CPU only).
import json, random, sys
from triton._C.libtriton import ir, gluon_ir
import triton.experimental.gluon.language as ttgl
ctx = ir.context(); ir.load_dialects(ctx)
rng = random.Random(int(sys.argv[1]))
out = open(sys.argv[2], "w")
def vec(flat_bit, shape):
    # flat bit -> one-hot vector over dims (dim bits: last dim low)
    logs = [s.bit_length() - 1 for s in shape]
    v = [0]*len(shape); b = flat_bit
    for d in reversed(range(len(shape))):
        if b < logs[d]:
            v[d] = 1 << b; return v
        b -= logs[d]
    raise ValueError
def xor(a, b): return [x ^ y for x, y in zip(a, b)]
n = 0
while n < int(sys.argv[3]):
    rank = rng.choice([1, 2, 2, 2, 3])
    shared = rng.random() < 0.3
    total_bits = rng.randint(1, 8)
    logs = [0]*rank
    for _ in range(total_bits): logs[rng.randrange(rank)] += 1
    shape = [1 << l for l in logs]
    vecs = [vec(i, shape) for i in range(total_bits)]
    rng.shuffle(vecs)
    for i in range(1, len(vecs)):
        if shared and rng.random() < 0.3:
            vecs[i] = xor(vecs[i], vecs[rng.randrange(i)])
    zero = [0]*rank
    try:
        if shared:
            nb = rng.choice([0, 0, 1, 2, 4])
            nb = min(nb, total_bits - 1)
            offs = vecs[:total_bits - nb]; blk = vecs[total_bits - nb:]
            if rng.random() < 0.3: blk.append(list(zero))
            obj = ttgl.SharedLinearLayout(offset_bases=offs, block_bases=blk)
        else:
            nlane = 5
            pool = list(vecs)
            nreg = rng.randint(0, max(0, len(pool) - 0))
            reg = pool[:rng.randint(0, len(pool))]; pool = pool[len(reg):]
            lane = pool[:nlane]; pool = pool[len(lane):]
            lane += [zero]*(nlane - len(lane))
            warp = pool[:rng.randint(0, len(pool))]; pool = pool[len(warp):]
            block = pool
            for i in range(len(warp)):
                if rng.random() < 0.4 and reg:
                    warp[i] = xor(warp[i], rng.choice(reg + lane))
            for lst in (reg, warp, block):
                for _ in range(rng.choice([0, 0, 1])):
                    lst.insert(rng.randint(0, len(lst)), list(zero))
            if rng.random() < 0.2:
                block += [list(zero)]*rng.choice([3, 4])
            if rng.random() < 0.2:
                reg += [list(zero)]*rng.choice([2, 3, 4])
            slots = 2**(len(reg)+len(lane)+len(warp)+len(block))
            if slots > 4096: continue
            obj = ttgl.DistributedLinearLayout(reg_bases=reg, lane_bases=lane, warp_bases=warp, block_bases=block, shape=shape)
        tv = gluon_ir.get_layout_view(obj, shape, False)
        hv = gluon_ir.get_layout_view(obj, shape, True)
    except Exception as e:
        print("skip", e, file=sys.stderr); continue
    lin = ({"offset": offs, "block": blk} if shared else {"register": reg, "lane": lane, "warp": warp, "block": block})
    out.write(json.dumps({"id": "g%d-V%05d" % (int(sys.argv[1]), n), "kind": "shared_linear" if shared else "linear", "shape": shape,
                          "space": "shared" if shared else "dist", "linear": lin, "tensor_view": tv, "hardware_view": hv}) + "\n")
    n += 1
