// A JSON websocket to one of the server's sockets (docs/websocket.md), signed in by the page's session cookie.
// `ready()` opens it (again, after a drop) and resolves once it is open; frames go to `onFrame`.

export class JsonSocket {
  constructor(path, { onFrame, onClose = () => {} }) {
    this.path = path;
    this.onFrame = onFrame;
    this.onClose = onClose;
    this.socket = null;
    this.opening = null;
  }

  url() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${window.location.host}${this.path}`;
  }

  ready() {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) return Promise.resolve(this);
    if (this.opening) return this.opening;
    this.opening = new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url());
      socket.onopen = () => {
        this.socket = socket;
        this.opening = null;
        resolve(this);
      };
      socket.onmessage = (message) => this.onFrame(JSON.parse(message.data));
      socket.onclose = (event) => {
        if (this.opening) {
          this.opening = null;
          reject(new Error(`the server closed the socket (${event.code})`));
        }
        if (this.socket === socket) this.socket = null;
        this.onClose(event);
      };
    });
    return this.opening;
  }

  async send(frame) {
    await this.ready();
    this.socket.send(JSON.stringify(frame));
  }

  close() {
    if (this.socket) this.socket.close(1000);
  }
}
