// The protocol's names (retrieval events, websocket frames, error codes, algorithms, job states and kinds) as the server declares them
// (memoria/retrieval/event_types.py, explorer/frames.py), read from the page rather than retyped here.
const declared = JSON.parse(document.getElementById("memoria-names").textContent);

function names(kind) {
  const table = declared[kind];
  // A misspelt name is a bug to see at once, not an `undefined` that silently never matches.
  return new Proxy(Object.freeze({ ...table }), {
    get(target, name) {
      if (typeof name === "string" && /^[A-Z_]+$/.test(name) && !(name in target)) throw new Error(`no ${kind} named ${name}`);
      return target[name];
    },
  });
}

export const EVENT = names("EVENT");
export const FRAME = names("FRAME");
export const ERROR = names("ERROR");
export const ALGORITHM = names("ALGORITHM");
export const JOB_STATE = names("JOB_STATE");
export const JOB_KIND = names("JOB_KIND");
