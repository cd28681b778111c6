// Reads a JSON list of strings on stdin, prints their o200k_base token counts as a JSON list (special-token
// strings counted as the ordinary text they are, as Memoria counts them).
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const texts = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const counts = texts.map((text) => encode(text, { disallowedSpecial: new Set() }).length);
process.stdout.write(JSON.stringify(counts));
