// Formatting of results.
function formatResult(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(2)
}

module.exports = { formatResult }
