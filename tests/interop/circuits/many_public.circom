// Twenty public inputs and two public outputs (sum of squares and a
// weighted sum), compiled with --O1 so linear constraints stay in the
// r1cs (A = B = empty).  Exercises large IC arrays and the public part of
// the witness (w[1..nPublic], outputs first).
pragma circom 2.0.0;

template ManyPublic(n) {
    signal input x[n];
    signal input salt;
    signal output sq;
    signal output lin;
    signal acc[n + 1];
    signal s[n];
    acc[0] <== salt * salt;
    var l = 0;
    for (var i = 0; i < n; i++) {
        s[i] <== x[i] * x[i];
        acc[i + 1] <== acc[i] + s[i];
        l += (i + 1) * x[i];
    }
    sq <== acc[n];
    lin <== l + 7 * salt;
}

component main {public [x]} = ManyPublic(20);
