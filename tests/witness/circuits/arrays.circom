// Inputs of several shapes: a scalar, a vector, a 3x4 matrix and a 2x2x3
// array (input.json gives them as nested arrays, flattened row-major).
// Outputs the matrix-vector product and a scaled sum of the 3-D array.
pragma circom 2.0.0;

template Arrays() {
    signal input s;
    signal input v[4];
    signal input m[3][4];
    signal input t[2][2][3];
    signal output mv[3];
    signal output ts;
    signal prod[3][4];
    for (var i = 0; i < 3; i++) {
        var acc = 0;
        for (var j = 0; j < 4; j++) {
            prod[i][j] <== m[i][j] * v[j];
            acc += prod[i][j];
        }
        mv[i] <== acc;
    }
    var sum = 0;
    for (var i = 0; i < 2; i++)
        for (var j = 0; j < 2; j++)
            for (var l = 0; l < 3; l++)
                sum += (i * 6 + j * 3 + l + 1) * t[i][j][l];
    ts <== sum * s;
}

component main {public [s, v]} = Arrays();
