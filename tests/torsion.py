#!/usr/bin/env python3
"""Moves a point of a snarkjs proof out of the prime-order subgroup.

  torsion.py IN OUT POINT     POINT: pi_a, pi_b or pi_c

Writes the proof IN to OUT with POINT replaced by P + T, where P is the
proof's own point and T = [r]Q for the first curve point Q with a small x
(x = 1, 2, ... on G1; x = i + u on G2) whose [r]Q is not O.  The group has
order h*r with r prime to h, so T has order dividing h and P + T is on the
curve but outside the subgroup.  Before writing, the script checks that P
is on the curve and in the subgroup (so the curve constants are right) and
that P + T is on the curve with [r](P + T) != O.  Deterministic: the same
IN gives the same OUT.  BN254's G1 has cofactor 1: there pi_a and pi_c
cannot be moved, and asking for them is an error.
"""
import json
import sys

CURVES = {
    "bn128": dict(
        p=0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47,
        r=0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001,
        b1=3, b2=None),  # b2 = 3 / (9 + u), set below
    "bls12381": dict(
        p=0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB,
        r=0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
        b1=4, b2=(4, 4)),
}


class Fp2:
    """Arithmetic in Fp[u] / (u^2 + 1), elements (c0, c1); Fp is c1 = 0."""

    def __init__(self, p):
        self.p = p

    def add(self, a, b):
        return ((a[0] + b[0]) % self.p, (a[1] + b[1]) % self.p)

    def sub(self, a, b):
        return ((a[0] - b[0]) % self.p, (a[1] - b[1]) % self.p)

    def mul(self, a, b):
        p = self.p
        return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)

    def inv(self, a):
        n = pow((a[0] * a[0] + a[1] * a[1]) % self.p, -1, self.p)
        return (a[0] * n % self.p, -a[1] * n % self.p)

    def fp_sqrt(self, a):  # p = 3 mod 4 on both curves
        s = pow(a, (self.p + 1) // 4, self.p)
        return s if s * s % self.p == a % self.p else None

    def sqrt(self, a):
        """A square root of a in Fp2, or None."""
        p = self.p
        if a[1] == 0:
            s = self.fp_sqrt(a[0])
            if s is not None:
                return (s, 0)
            s = self.fp_sqrt(-a[0] % p)
            return None if s is None else (0, s)
        alpha = self.fp_sqrt((a[0] * a[0] + a[1] * a[1]) % p)
        if alpha is None:
            return None
        half = pow(2, -1, p)
        for d in ((a[0] + alpha) * half % p, (a[0] - alpha) * half % p):
            x0 = self.fp_sqrt(d)
            if x0:
                y = (x0, a[1] * pow(2 * x0, -1, p) % p)
                if self.mul(y, y) == (a[0] % p, a[1] % p):
                    return y
        return None


class Curve:
    """y^2 = x^3 + b over F (affine points, None for O)."""

    def __init__(self, f, b, r):
        self.f, self.b, self.r = f, b, r

    def on_curve(self, P):
        f = self.f
        x, y = P
        return f.mul(y, y) == f.add(f.mul(f.mul(x, x), x), self.b)

    def add(self, P, Q):
        f = self.f
        if P is None:
            return Q
        if Q is None:
            return P
        if P[0] == Q[0]:
            if f.add(P[1], Q[1]) == (0, 0):
                return None
            t = f.mul(f.mul((3, 0), P[0]), P[0])
            l = f.mul(t, f.inv(f.add(P[1], P[1])))
        else:
            l = f.mul(f.sub(Q[1], P[1]), f.inv(f.sub(Q[0], P[0])))
        x = f.sub(f.sub(f.mul(l, l), P[0]), Q[0])
        return (x, f.sub(f.mul(l, f.sub(P[0], x)), P[1]))

    def mul(self, k, P):
        R = None
        for bit in bin(k)[2:]:
            R = self.add(R, R)
            if bit == "1":
                R = self.add(R, P)
        return R

    def torsion(self, g2):
        """[r]Q for the first Q with a small x whose [r]Q is not O."""
        f = self.f
        for i in range(1, 4096):
            x = (i, 1) if g2 else (i, 0)
            rhs = f.add(f.mul(f.mul(x, x), x), self.b)
            y = f.sqrt(rhs) if g2 else (lambda s: None if s is None else (s, 0))(f.fp_sqrt(rhs[0]))
            if y is None:
                continue
            T = self.mul(self.r, (x, y))
            if T is not None:
                return T
        sys.exit("torsion.py: no curve point with [r]Q != O found")


def main(src, dst, which):
    j = json.load(open(src))
    c = CURVES.get(j.get("curve"))
    if c is None or which not in ("pi_a", "pi_b", "pi_c"):
        sys.exit("torsion.py: curve %r, point %r: unsupported" % (j.get("curve"), which))
    f = Fp2(c["p"])
    g2 = which == "pi_b"
    if g2:
        b = c["b2"] or f.mul((3, 0), f.inv((9, 1)))
    elif j["curve"] == "bn128":
        sys.exit("torsion.py: BN254's G1 has cofactor 1; %s cannot leave the subgroup" % which)
    else:
        b = (c["b1"], 0)
    E = Curve(f, b, c["r"])
    pt = j[which]
    if g2:
        if pt[2] != ["1", "0"]:
            sys.exit("torsion.py: %s is not affine" % which)
        P = ((int(pt[0][0]), int(pt[0][1])), (int(pt[1][0]), int(pt[1][1])))
    else:
        if pt[2] != "1":
            sys.exit("torsion.py: %s is not affine" % which)
        P = ((int(pt[0]), 0), (int(pt[1]), 0))
    if not E.on_curve(P) or E.mul(c["r"], P) is not None:
        sys.exit("torsion.py: %s of %s is not a subgroup point (wrong constants?)" % (which, src))
    Q = E.add(P, E.torsion(g2))
    if Q is None or not E.on_curve(Q) or E.mul(c["r"], Q) is None:
        sys.exit("torsion.py: P + T is not on the curve outside the subgroup")
    if g2:
        j[which] = [[str(Q[0][0]), str(Q[0][1])], [str(Q[1][0]), str(Q[1][1])], ["1", "0"]]
    else:
        j[which] = [str(Q[0][0]), str(Q[1][0]), "1"]
    json.dump(j, open(dst, "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
