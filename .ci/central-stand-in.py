"""A stand-in for Maven Central's publisher API on 127.0.0.1, for .ci/check-release-bundle.

It accepts the release build's upload (POST /api/v1/publisher/upload, the bundle as the multipart field
"bundle"), keeps the bundle in the file named by its second argument, and answers with a deployment id as
Central does, so the build runs exactly as a release would, up to and including the upload, while nothing leaves
the machine. It writes the port it listens on to the file named by its first argument.
"""
import http.server
import sys

port_file, upload_file = sys.argv[1], sys.argv[2]


class StandIn(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        boundary = self.headers["Content-Type"].split("boundary=")[1].strip('"').encode()
        for part in body.split(b"--" + boundary):
            head, _, content = part.partition(b"\r\n\r\n")
            if b'name="bundle"' in head:
                with open(upload_file, "wb") as out:
                    out.write(content[:-2] if content.endswith(b"\r\n") else content)
        self.send_response(201)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"00000000-0000-0000-0000-000000000000")

    def log_message(self, format, *args):
        print(self.command, self.path, flush=True)


server = http.server.HTTPServer(("127.0.0.1", 0), StandIn)
with open(port_file, "w") as out:
    out.write(str(server.server_port))
server.serve_forever()
