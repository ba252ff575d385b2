#!/usr/bin/env python3
"""Derive every field and curve constant of cuzk from the curve parameters.

Writes field/consts_gen.h.  Inputs are only the defining parameters:
  BLS12-381: x = -0xd201000000010000, p = (x-1)^2 (x^4-x^2+1)/3 + x, r = x^4-x^2+1
  BN254:     u = 0x44e992b44a6909f1, p = 36u^4+36u^3+24u^2+6u+1, r = 36u^4+36u^3+18u^2+6u+1
Everything else (Montgomery constants, roots of unity, curve coefficients,
generators' Montgomery images, Frobenius coefficients) is computed here and
checked independently: tests/test_field.c re-derives the field constants and
roots of unity from the moduli with GMP, tests/test_tower.c checks every
Frobenius map against a^(p^k), and tests/test_curve.c checks the curve
constants (generators, cofactors, endomorphisms) on points.
Run: python3 scripts/gen_consts.py > field/consts_gen.h
"""

def limbs(v, n):
    return [(v >> (64 * i)) & (2**64 - 1) for i in range(n)]

def carr(v, n):
    return "{" + ", ".join("0x%016xULL" % l for l in limbs(v, n)) + "}"

out = []
def emit(name, v, n, comment):
    out.append("/* %s */" % comment)
    out.append("#define %s %s" % (name, carr(v, n)))

def field(prefix, p, n, nqr_hint=None):
    R = 2 ** (64 * n)
    emit(prefix + "_P", p, n, "modulus")
    emit(prefix + "_ONE", R % p, n, "R mod p (Montgomery one)")
    emit(prefix + "_R2", R * R % p, n, "R^2 mod p")
    emit(prefix + "_PM2", p - 2, n, "p - 2 (Fermat inverse exponent)")
    emit(prefix + "_PM1H", (p - 1) // 2, n, "(p - 1) / 2 (Euler criterion exponent)")
    n0 = (-pow(p, -1, 2 ** 64)) % 2 ** 64
    out.append("/* -p^-1 mod 2^64 */")
    out.append("#define %s_N0 0x%016xULL" % (prefix, n0))
    s = 0
    t = p - 1
    while t % 2 == 0:
        t //= 2
        s += 1
    out.append("/* 2-adicity of p - 1 */")
    out.append("#define %s_S %d" % (prefix, s))
    emit(prefix + "_T", t, n, "odd part t of p - 1 = 2^S t")
    emit(prefix + "_TM1H", (t - 1) // 2, n, "(t - 1) / 2 (Tonelli-Shanks)")
    if p % 4 == 3:
        emit(prefix + "_SQRT_EXP", (p + 1) // 4, n, "(p + 1) / 4 (square root, p = 3 mod 4)")
    # smallest quadratic non-residue >= 2 (ffjavascript convention)
    z = 2
    while pow(z, (p - 1) // 2, p) != p - 1:
        z += 1
    out.append("/* smallest quadratic non-residue */")
    out.append("#define %s_NQR %d" % (prefix, z))
    root = pow(z, t, p)
    emit(prefix + "_ROOT_MONT", root * R % p, n,
         "nqr^t: primitive 2^S-th root of unity (Montgomery form)")
    emit(prefix + "_NQR_MONT", z * R % p, n, "nqr (Montgomery form)")
    return R

def mont(v, p, n):
    return v * 2 ** (64 * n) % p

def fp2_mul(a, b, p):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)

def fp2_pow(a, e, p):
    r = (1, 0)
    while e:
        if e & 1:
            r = fp2_mul(r, a, p)
        a = fp2_mul(a, a, p)
        e >>= 1
    return r

def fp2_inv(a, p):
    d = pow(a[0] * a[0] + a[1] * a[1], p - 2, p)
    return (a[0] * d % p, (-a[1]) * d % p)

def emit_fp2(name, a, p, n, comment):
    out.append("/* %s */" % comment)
    out.append("#define %s {{%s, %s}}" % (name, carr(mont(a[0], p, n), n), carr(mont(a[1], p, n), n)))

def curve(prefix, p, r, n, xi, b, twist, g1, g2, h1, h2):
    R = field(prefix + "_FP", p, n)
    field(prefix + "_FR", r, 4)
    emit(prefix + "_B_MONT", mont(b, p, n), n, "G1: y^2 = x^3 + b")
    if twist == "M":
        b2 = fp2_mul((b, 0), xi, p)
    else:
        b2 = fp2_mul((b, 0), fp2_inv(xi, p), p)
    emit_fp2(prefix + "_B2_MONT", b2, p, n, "G2 twist: y^2 = x^3 + b' (b' = b*xi for an M-type twist, b/xi for D-type)")
    emit_fp2(prefix + "_XI_MONT", xi, p, n, "xi: Fp6 = Fp2[v]/(v^3 - xi)")
    emit(prefix + "_G1X_MONT", mont(g1[0], p, n), n, "G1 generator x")
    emit(prefix + "_G1Y_MONT", mont(g1[1], p, n), n, "G1 generator y")
    emit_fp2(prefix + "_G2X_MONT", g2[0], p, n, "G2 generator x")
    emit_fp2(prefix + "_G2Y_MONT", g2[1], p, n, "G2 generator y")
    # Frobenius coefficients: gamma_{1,i} = xi^(i (p-1)/6), i = 1..5; gamma_{2,i} = gamma_{1,i} * conj(gamma_{1,i})
    # and for Fp6: v^p = xi^((p-1)/3) v, v^(2p) = xi^(2(p-1)/3) v^2; for Fp12: w^p = xi^((p-1)/6) w
    for i in range(1, 6):
        g = fp2_pow(xi, i * (p - 1) // 6, p)
        emit_fp2("%s_FROB1_%d" % (prefix, i), g, p, n, "xi^(%d (p-1)/6)" % i)
    for i in range(1, 6):
        g = fp2_pow(xi, i * (p * p - 1) // 6, p)
        assert g[1] == 0
        emit_fp2("%s_FROB2_%d" % (prefix, i), g, p, n, "xi^(%d (p^2-1)/6), in Fp" % i)
    for i in range(1, 6):
        g = fp2_pow(xi, i * (p ** 3 - 1) // 6, p)
        emit_fp2("%s_FROB3_%d" % (prefix, i), g, p, n, "xi^(%d (p^3-1)/6)" % i)
    emit(prefix + "_H1", h1, 8, "G1 cofactor (up to 512 bits, 8 limbs)")
    emit(prefix + "_H2", h2, 8, "G2 cofactor (up to 512 bits, 8 limbs)")
    # cube root of unity in Fp (for GLV endomorphism / fast subgroup checks)
    beta = None
    for c in range(2, 100):
        w = pow(c, (p - 1) // 3, p)
        if w != 1:
            beta = w
            break
    emit(prefix + "_CUBE_ROOT_MONT", mont(beta, p, n), n, "a primitive cube root of unity in Fp")

# ---------------- BLS12-381 ----------------
x = -0xd201000000010000
p = (x - 1) ** 2 * (x ** 4 - x ** 2 + 1) // 3 + x
r = x ** 4 - x ** 2 + 1
assert p == 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
assert r == 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
h1 = (x - 1) ** 2 // 3
# G2 cofactor of BLS12 curves
h2 = (x ** 8 - 4 * x ** 7 + 5 * x ** 6 - 4 * x ** 4 + 6 * x ** 3 - 4 * x ** 2 - 4 * x + 13) // 9
# standard generators (zcash / IETF pairing-friendly-curves draft)
g1 = (0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
      0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)
g2 = ((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
       0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
      (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
       0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be))
assert (g1[1] ** 2 - g1[0] ** 3 - 4) % p == 0
out.append("/* ---- BLS12-381 (x = -0xd201000000010000) ---- */")
out.append("#define BLS12_381_X_ABS 0xd201000000010000ULL")
curve("BLS12_381", p, r, 6, (1, 1), 4, "M", g1, g2, h1, h2)

# ---------------- BN254 ----------------
u = 0x44e992b44a6909f1
p = 36 * u ** 4 + 36 * u ** 3 + 24 * u ** 2 + 6 * u + 1
r = 36 * u ** 4 + 36 * u ** 3 + 18 * u ** 2 + 6 * u + 1
assert p == 21888242871839275222246405745257275088696311157297823662689037894645226208583
assert r == 21888242871839275222246405745257275088548364400416034343698204186575808495617
g1 = (1, 2)
g2 = ((10857046999023057135944570762232829481370756359578518086990519993285655852781,
       11559732032986387107991004021392285783925812861821192530917403151452391805634),
      (8495653923123431417604973247489272438418190587263600148770280649306958101930,
       4082367875863433681332203403145435568316851327593401208105741076214120093531))
h2 = 2 * p - r
out.append("/* ---- BN254 (u = 0x44e992b44a6909f1) ---- */")
out.append("#define BN254_U 0x44e992b44a6909f1ULL")
six_u_2 = 6 * u + 2
emit("BN254_ATE_LOOP", six_u_2, 2, "6u + 2 (optimal ate loop count)")
curve("BN254", p, r, 4, (9, 1), 3, "D", g1, g2, 1, h2)

# ---------------- endomorphisms for subgroup tests (curve helper) ----------------
# Affine short-Weierstrass arithmetic over Fp or Fp2, used only to check the
# constants below on the generators (slow but independent of the C code).
def _f_ops(p, ext):
    if not ext:
        return (lambda a, b: (a + b) % p, lambda a, b: (a - b) % p,
                lambda a, b: a * b % p, lambda a: pow(a, p - 2, p), 0)
    return (lambda a, b: ((a[0] + b[0]) % p, (a[1] + b[1]) % p),
            lambda a, b: ((a[0] - b[0]) % p, (a[1] - b[1]) % p),
            lambda a, b: fp2_mul(a, b, p), lambda a: fp2_inv(a, p), (0, 0))

def ec_mul(P, k, p, ext):
    add, sub, mul, inv, zero = _f_ops(p, ext)
    def ec_add(A, B):
        if A is None:
            return B
        if B is None:
            return A
        if A[0] == B[0]:
            if A[1] != B[1] or A[1] == zero:
                return None
            three = (3, 0) if ext else 3
            two = (2, 0) if ext else 2
            lam = mul(mul(three, mul(A[0], A[0])), inv(mul(two, A[1])))
        else:
            lam = mul(sub(B[1], A[1]), inv(sub(B[0], A[0])))
        x3 = sub(sub(mul(lam, lam), A[0]), B[0])
        return (x3, sub(mul(lam, sub(A[0], x3)), A[1]))
    neg = k < 0
    k = abs(k)
    R = None
    while k:
        if k & 1:
            R = ec_add(R, P)
        P = ec_add(P, P)
        k >>= 1
    if neg and R is not None:
        R = (R[0], sub(zero, R[1]))
    return R

def endo_consts(prefix, p, r, n, xi, twist, g1, g2, lam_g1, lam_g2):
    # G1: phi(x, y) = (beta x, y) acts on G1 as [lam_g1]; pick the cube root
    # of unity beta (there are two) for which that holds on the generator.
    betas = [w for w in (pow(c, (p - 1) // 3, p) for c in range(2, 50)) if w != 1]
    beta = next(b for b in betas
                if ec_mul(g1, lam_g1, p, False) == (b * g1[0] % p, g1[1]))
    assert pow(beta, 3, p) == 1 and beta != 1
    emit(prefix + "_G1_BETA_MONT", mont(beta, p, n), n,
         "beta: phi(x, y) = (beta x, y) = [%s]P on G1" % ("-x^2" if prefix == "BLS12_381" else "lambda"))
    # G2: psi = twist o Frobenius o untwist: (x, y) -> (cx conj(x), cy conj(y)).
    # M-type twist (untwist x -> x / w^2, y -> y / w^3, w^6 = xi):
    #   cx = xi^-((p-1)/3), cy = xi^-((p-1)/2).
    # D-type twist (untwist x -> x w^2, y -> y w^3): cx = xi^((p-1)/3), cy = xi^((p-1)/2).
    cx = fp2_pow(xi, (p - 1) // 3, p)
    cy = fp2_pow(xi, (p - 1) // 2, p)
    if twist == "M":
        cx, cy = fp2_inv(cx, p), fp2_inv(cy, p)
    conj = lambda a: (a[0], (-a[1]) % p)
    psi_g2 = (fp2_mul(cx, conj(g2[0]), p), fp2_mul(cy, conj(g2[1]), p))
    # psi satisfies psi^2 - t psi + p = 0 and acts on G2 as p mod r.
    assert ec_mul(g2, lam_g2, p, True) == psi_g2
    assert (lam_g2 - p) % r == 0
    emit_fp2(prefix + "_PSI_CX_MONT", cx, p, n, "psi x coefficient")
    emit_fp2(prefix + "_PSI_CY_MONT", cy, p, n, "psi y coefficient")

x = -0xd201000000010000
p = (x - 1) ** 2 * (x ** 4 - x ** 2 + 1) // 3 + x
r = x ** 4 - x ** 2 + 1
bls_g1 = (0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
          0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)
bls_g2 = ((0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
           0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e),
          (0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
           0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be))
out.append("/* ---- endomorphisms for subgroup tests (BLS12-381: phi = [-x^2] on G1, psi = [x] on G2) ---- */")
endo_consts("BLS12_381", p, r, 6, (1, 1), "M", bls_g1, bls_g2, -x * x, x)

u = 0x44e992b44a6909f1
p = 36 * u ** 4 + 36 * u ** 3 + 24 * u ** 2 + 6 * u + 1
r = 36 * u ** 4 + 36 * u ** 3 + 18 * u ** 2 + 6 * u + 1
bn_g2 = ((10857046999023057135944570762232829481370756359578518086990519993285655852781,
          11559732032986387107991004021392285783925812861821192530917403151452391805634),
         (8495653923123431417604973247489272438418190587263600148770280649306958101930,
          4082367875863433681332203403145435568316851327593401208105741076214120093531))
# BN254 G1 has cofactor 1, so beta is emitted only for GLV-style use, paired
# with the eigenvalue lambda = 36u^3 + 18u^2 + 6u + 1 (a root of z^2 + z + 1 mod r).
lam = 36 * u ** 3 + 18 * u ** 2 + 6 * u + 1
assert (lam * lam + lam + 1) % r == 0
out.append("/* ---- endomorphisms (BN254: psi = [6u^2] on G2; Dai-Lin-Zhao-Zhou test needs u != 4 mod 13, u != 92 mod 97) ---- */")
assert u % 13 != 4 and u % 97 != 92 and (6 * u * u - p) % r == 0
endo_consts("BN254", p, r, 4, (9, 1), "D", (1, 2), bn_g2, lam, 6 * u * u)

print("/* Generated by scripts/gen_consts.py -- do not edit. */")
print("#ifndef CUZK_FIELD_CONSTS_GEN_H")
print("#define CUZK_FIELD_CONSTS_GEN_H")
print("\n".join(out))
print("#endif")
