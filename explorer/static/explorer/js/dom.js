// Tiny DOM helpers: build elements without innerHTML, so names and facts from the graph are never parsed as HTML.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") element.className = value;
    else if (key === "text") element.textContent = value;
    else if (key.startsWith("on")) element.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(element.dataset, value);
    // Through the CSSOM: the Content-Security-Policy refuses style attributes, not element.style.
    else if (key === "style") Object.assign(element.style, value);
    else element.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function day(timestamp) {
  return timestamp ? timestamp.slice(0, 10) : "";
}

export function number(value, digits = 3) {
  return value === null || value === undefined ? "" : Number(value).toPrecision(digits).replace(/\.?0+$/, "");
}
