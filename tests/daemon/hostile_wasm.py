#!/usr/bin/env python3
"""Hand-made circom-like witness calculators that misbehave, for the tests.

Usage: hostile_wasm.py KIND OUT.wasm [N_WITNESS] [SEED]

Writes a WebAssembly text module speaking circom 2's witness protocol over
the bn128 scalar field (the exports and imports `circom --wasm` makes) and
assembles it with wabt's wat2wasm.  KIND picks the misbehaviour:

  good        a well-behaved circuit: N_WITNESS wires, one input "a",
              witness (1, a, 0, 0, ...)
  bls         the same over the bls12381 scalar field (for a bn128 key:
              a circuit of the other curve)
  recurse     getVersion recurses 9,000 frames deep (inside wasm2c's call
              depth limit), 150 live i64 locals a frame: a native stack
              overflow
  lie_n32     getFieldNumLen32 answers 8 once, then 0x7fffffff
  start_loop  the start function never returns
  calc_loop   setInputSignal never returns
  membomb     the start function grows memory by 200 MiB and writes it all
  log_flood   setInputSignal prints 20,000 lines with log()
  info_loop   getVersion never returns (the circuit's inspection at load)
  random      every size the module reports is drawn from SEED
  bigfn       a well-behaved circuit plus one function of 8,000 i64 locals
              (SEED varies a constant): seconds and hundreds of MiB of the
              C compiler (refused before compiling: more locals than any
              circuit has)
  slowfn      a well-behaved circuit plus 16 functions of 900 i64 locals
              each (within the bounds on locals): a compile of seconds
"""
import random
import subprocess
import sys

R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
R_BLS = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def words(v):
    return [(v >> (32 * i)) & 0xFFFFFFFF for i in range(8)]


def module(kind, n_witness, seed):
    rnd = random.Random(seed)
    version = "(i32.const 2)"
    n32 = "(i32.const 8)"
    wsize = "(i32.const %d)" % n_witness
    isize = "(i32.const 1)"
    sig_size = "(i32.const 1)"
    set_body = ""
    start = ""
    extra = ""
    if kind == "recurse":
        locals_ = " ".join("(local $l%d i64)" % i for i in range(150))
        sets = "".join("(local.set $l%d (i64.add (local.get $l%d) (i64.extend_i32_u (local.get 0))))"
                       % (i, (i + 1) % 150) for i in range(150))
        total = "(i64.const 0)"
        for i in range(150):
            total = "(i64.add %s (local.get $l%d))" % (total, i)
        extra = """
  (func $deep (param i32) (result i64) %s %s
    (if (result i64) (i32.eqz (local.get 0)) (then %s)
      (else (i64.add (call $deep (i32.sub (local.get 0) (i32.const 1))) %s))))""" % (
            locals_, sets, total, total)
        version = "(i32.wrap_i64 (call $deep (i32.const 9000)))"
    elif kind == "lie_n32":
        n32 = """(global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (if (result i32) (i32.eq (global.get $calls) (i32.const 1))
      (then (i32.const 8)) (else (i32.const 0x7fffffff)))"""
    elif kind == "start_loop":
        start = "(start $forever)"
    elif kind == "calc_loop":
        set_body = "(loop $l (br $l))"
    elif kind == "membomb":
        start = "(start $bomb)"
        extra = """
  (func $bomb (local $p i32)
    (drop (memory.grow (i32.const 3200)))
    (local.set $p (i32.const 131072))
    (loop $l
      (i32.store (local.get $p) (local.get $p))
      (local.set $p (i32.add (local.get $p) (i32.const 4096)))
      (br_if $l (i32.lt_u (local.get $p) (i32.const 209846272)))))"""
    elif kind == "log_flood":
        # each line: the message "x", then the message "\\n" (circom's way)
        set_body = """(local $i i32)
    (loop $l
      (global.set $msg (i32.const 0)) (call $wbm)
      (global.set $msg (i32.const 2)) (call $wbm)
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 20000))))"""
    elif kind == "info_loop":
        version = "(loop $l (br $l)) (i32.const 2)"
    elif kind == "slowfn":
        n = 900
        for f in range(16):
            locals_ = " ".join("(local $l%d i64)" % i for i in range(n))
            body = "".join("(local.set $l%d (i64.mul (local.get $l%d) (i64.add (local.get $l%d) "
                           "(i64.rotl (local.get $l%d) (i64.const %d)))))"
                           % (i, (i * 13 + p + 1) % n, (i * 7 + 3 * p) % n, (i * 31 + p) % n,
                              i + seed + p + f) for p in range(4) for i in range(n))
            total = "(local.get $l0)"
            for i in range(1, n, 97):
                total = "(i64.xor %s (local.get $l%d))" % (total, i)
            extra += "\n  (func $slow%d (export \"slow%d\") (param i64) (result i64) %s %s %s)" % (
                f, f, locals_, body, total)
    elif kind == "bigfn":
        n = 8000
        locals_ = " ".join("(local $l%d i64)" % i for i in range(n))
        body = "".join("(local.set $l%d (i64.mul (local.get $l%d) (i64.add (local.get $l%d) "
                       "(i64.rotl (local.get $l%d) (i64.const %d)))))"
                       % (i, (i * 13 + p + 1) % n, (i * 7 + 3 * p) % n, (i * 31 + p) % n,
                          i + seed + p) for p in range(4) for i in range(n))
        total = "(local.get $l0)"
        for i in range(1, n, 97):
            total = "(i64.xor %s (local.get $l%d))" % (total, i)
        extra = "\n  (func $big (export \"big\") (param i64) (result i64) %s %s %s)" % (
            locals_, body, total)
    elif kind == "random":
        pick = lambda: rnd.choice([0, 1, 2, 7, 8, 9, 64, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                                   0xFFFFFFFF, rnd.getrandbits(32), n_witness])
        version = "(i32.const %d)" % pick()
        n32 = "(i32.const %d)" % rnd.choice([8, 8, 8, pick()])
        wsize = "(i32.const %d)" % pick()
        isize = "(i32.const %d)" % pick()
        sig_size = "(i32.const %d)" % pick()
    elif kind not in ("good", "bls"):
        raise SystemExit("unknown kind " + kind)

    def s32(v):
        return v - (1 << 32) if v >= 1 << 31 else v
    prime = "".join("(i32.store (i32.const %d) (i32.const %d))" % (64 + 4 * i, s32(w))
                    for i, w in enumerate(words(R_BLS if kind == "bls" else R)))
    return """(module
  (import "runtime" "exceptionHandler" (func $exc (param i32)))
  (import "runtime" "printErrorMessage" (func $perr))
  (import "runtime" "writeBufferMessage" (func $wbm))
  (import "runtime" "showSharedRWMemory" (func $show))
  (memory (export "memory") 2)
  (global $calls (mut i32) (i32.const 0))
  (global $msg (mut i32) (i32.const 0))
  (data (i32.const 0) "x\\00\\0a\\00")
  (func $forever (loop $l (br $l)))%s
  (func (export "getVersion") (result i32) %s)
  (func (export "getMinorVersion") (result i32) (i32.const 1))
  (func (export "getPatchVersion") (result i32) (i32.const 0))
  (func (export "getFieldNumLen32") (result i32) %s)
  (func (export "getRawPrime") %s)
  (func (export "readSharedRWMemory") (param i32) (result i32)
    (i32.load (i32.add (i32.const 64) (i32.shl (local.get 0) (i32.const 2)))))
  (func (export "writeSharedRWMemory") (param i32 i32)
    (i32.store (i32.add (i32.const 64) (i32.shl (local.get 0) (i32.const 2))) (local.get 1)))
  (func (export "init") (param i32) (i32.store (i32.const 128) (i32.const 0)))
  (func (export "setInputSignal") (param i32 i32 i32) %s
    (i32.store (i32.const 128) (i32.load (i32.const 64))))
  (func (export "getInputSignalSize") (param i32 i32) (result i32) %s)
  (func (export "getWitnessSize") (result i32) %s)
  (func (export "getInputSize") (result i32) %s)
  (func (export "getWitness") (param i32) (local $j i32)
    (loop $z
      (i32.store (i32.add (i32.const 64) (i32.shl (local.get $j) (i32.const 2))) (i32.const 0))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $z (i32.lt_u (local.get $j) (i32.const 8))))
    (if (i32.eqz (local.get 0)) (then (i32.store (i32.const 64) (i32.const 1))))
    (if (i32.eq (local.get 0) (i32.const 1))
      (then (i32.store (i32.const 64) (i32.load (i32.const 128))))))
  (func (export "getMessageChar") (result i32) (local $c i32)
    (local.set $c (i32.load8_u (global.get $msg)))
    (global.set $msg (i32.add (global.get $msg) (i32.const 1)))
    (local.get $c))
  %s
)
""" % (extra, version, n32, prime, set_body, sig_size, wsize, isize, start)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    n_witness = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    wat = out[:-5] + ".wat" if out.endswith(".wasm") else out + ".wat"
    with open(wat, "w") as f:
        f.write(module(kind, n_witness, seed))
    subprocess.run(["wat2wasm", wat, "-o", out], check=True)


if __name__ == "__main__":
    main()
