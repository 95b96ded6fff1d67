// Server-Sent Events over a fetch() body. EventSource cannot POST or send headers, so the
// console reads the stream itself and splits it into events as the HTML spec describes.

/**
 * Yield `{event, data}` for each event in a byte stream.
 * @param {ReadableStream<Uint8Array>} body
 * @returns {AsyncGenerator<{event: string, data: string}>}
 */
export async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = "";
  let data = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let newline;
      while ((newline = nextLineEnd(buffer)) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(buffer[newline] === "\r" && buffer[newline + 1] === "\n" ? newline + 2 : newline + 1);
        if (line === "") {
          if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue; // a comment, e.g. a keep-alive
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "event") event = text;
        else if (field === "data") data.push(text);
      }
    }
    if (data.length > 0) yield { event: event || "message", data: data.join("\n") };
  } finally {
    reader.releaseLock();
  }
}

function nextLineEnd(text) {
  const cr = text.indexOf("\r");
  const lf = text.indexOf("\n");
  if (cr === -1) return lf;
  if (lf === -1) return cr === text.length - 1 ? -1 : cr; // a lone trailing \r may precede \n
  return Math.min(cr, lf);
}
