// Minimal tests, no framework.
const assert = require("node:assert")
const { add, subtract, multiply } = require("../src/math")

assert.strictEqual(add(2, 3), 5)
assert.strictEqual(subtract(5, 3), 2)
assert.strictEqual(multiply(-2, 3), -6)
console.log("all tests passed")
