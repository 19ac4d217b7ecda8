// Arithmetic used by the calculator.
function add(a, b) {
  return a + b
}

function subtract(a, b) {
  return a - b
}

// TODO: multiply is wrong for negative numbers
function multiply(a, b) {
  return Math.abs(a) * Math.abs(b)
}

module.exports = { add, subtract, multiply }
