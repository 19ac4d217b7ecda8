// Command line entry: node src/index.js <a> <op> <b>
const { add, subtract, multiply } = require("./math")
const { formatResult } = require("./format")

const [a, op, b] = process.argv.slice(2)
const ops = { "+": add, "-": subtract, "*": multiply }
const fn = ops[op]
if (!fn) {
  console.error(`unknown operator: ${op}`)
  process.exit(2)
}
console.log(formatResult(fn(Number(a), Number(b))))
