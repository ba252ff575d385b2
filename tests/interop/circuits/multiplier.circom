// Smallest useful Groth16 circuit: out = a * b * c with one public output.
// Exercises the basic r1cs/wtns/zkey layout (one public signal, infinity
// points in A/B for signals that appear in only one matrix).
pragma circom 2.0.0;

template Multiplier3() {
    signal input a;
    signal input b;
    signal input c;
    signal ab;
    signal output out;
    ab <== a * b;
    out <== ab * c;
}

component main = Multiplier3();
