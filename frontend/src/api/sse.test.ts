import { readEvents } from "./sse";

/** A response whose body arrives in the given byte pieces, as a network delivers it. */
function responseOf(pieces: (string | Uint8Array)[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const piece of pieces) controller.enqueue(typeof piece === "string" ? encoder.encode(piece) : piece);
      controller.close();
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
}

async function collect(response: Response) {
  const events = [];
  for await (const event of readEvents(response)) events.push(event);
  return events;
}

describe("readEvents", () => {
  it("yields each event with its name and parsed JSON data, in order", async () => {
    const events = await collect(
      responseOf([
        'event: message\ndata: {"message_id": 7, "conversation_id": 2}\n\n',
        'event: delta\ndata: {"text": "De stuwband"}\n\n',
      ]),
    );
    expect(events).toEqual([
      { event: "message", data: { message_id: 7, conversation_id: 2 } },
      { event: "delta", data: { text: "De stuwband" } },
    ]);
  });

  it("joins an event split across network chunks, even inside a multi-byte character", async () => {
    const bytes = new TextEncoder().encode('event: delta\ndata: {"text": "één brûlure"}\n\n');
    const pieces = [];
    for (let i = 0; i < bytes.length; i += 3) pieces.push(bytes.slice(i, i + 3));
    expect(await collect(responseOf(pieces))).toEqual([{ event: "delta", data: { text: "één brûlure" } }]);
  });

  it("reads CRLF line ends and skips comments (keep-alive pings)", async () => {
    const events = await collect(responseOf([": ping\r\n\r\n", 'event: done\r\ndata: {"state": "answered"}\r\n\r\n']));
    expect(events).toEqual([{ event: "done", data: { state: "answered" } }]);
  });

  it("names an event without an event field 'message'", async () => {
    expect(await collect(responseOf(['data: {"a": 1}\n\n']))).toEqual([{ event: "message", data: { a: 1 } }]);
  });

  it("drops the unfinished last event of a stream that was cut off", async () => {
    const events = await collect(responseOf(['event: delta\ndata: {"text": "a"}\n\n', 'event: delta\ndata: {"te']));
    expect(events).toEqual([{ event: "delta", data: { text: "a" } }]);
  });

  it("yields nothing for a response without a body", async () => {
    expect(await collect(new Response(null))).toEqual([]);
  });
});
