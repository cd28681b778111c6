// Neo4j's own Cypher parser and semantic checks (@neo4j-cypher/language-support, the linter of Neo4j's tools) over
// the texts given on stdin: {"schema": {labels, relationshipTypes}, "queries": {where: text}}. Prints, as JSON, the
// problems of each text that has any. Parameters are given at run time, so "not defined" ones are not problems.
const { lintCypherQuery } = require("@neo4j-cypher/language-support");

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const { schema, queries } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const found = {};
  for (const [where, text] of Object.entries(queries)) {
    const result = lintCypherQuery(text, schema);
    const problems = (Array.isArray(result) ? result : result.diagnostics)
      .filter((d) => !/^Parameter \$\w+ is not defined\.$/.test(d.message))
      .map((d) => `${d.severity === 1 ? "error" : "warning"}: ${d.message}`);
    if (problems.length) found[where] = problems;
  }
  process.stdout.write(JSON.stringify(found));
});
