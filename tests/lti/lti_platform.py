"""A test LTI 1.3 platform on loopback, built on lti1p3platform (stdlib HTTP server, no framework).
Started by a test: `python3 lti_platform.py [PORT [STATE_FILE]]` prints one JSON line {"url": ...} when it listens.
With a state file, everything it holds (its keys, the tool, roster, gradebook, scores) is written there after each
request and read back at start: a test may stop the LMS and start it again on the same port as the same LMS.
Test-only control routes live under /_test/ (register the tool, set the roster, read scores, tamper, hold a result)."""
import os
import json, sys, time, uuid, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
from urllib.parse import urlparse, parse_qs, urlencode
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import serialization
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.oidc_login import OIDCLoginAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService
from lti1p3platform.membership import Context
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.request import Request

def pem_pair():
    k = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return (k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
            k.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode())

PRIV, PUB = pem_pair()
LOCK = threading.Lock()
S = {"tool": None, "roster": {}, "lineitems": {}, "scores": [], "results": {}, "jtis": set(), "log": [], "tamper": None,
     "reg_token": uuid.uuid4().hex}
BASE = None  # http://localhost:PORT, set at start
STATE = None  # the state file, if any

def save():
    if not STATE: return
    kept = dict(S, jtis=sorted(S["jtis"]), results=[[li, u, r] for (li, u), r in S["results"].items()], keys=[PRIV, PUB])
    with open(STATE + ".new", "w") as f: json.dump(kept, f)
    os.replace(STATE + ".new", STATE)

def load():
    global PRIV, PUB
    if not STATE or not os.path.exists(STATE): return
    with open(STATE) as f: kept = json.load(f)
    PRIV, PUB = kept.pop("keys")
    S.update(kept, jtis=set(kept["jtis"]), results={(li, u): r for li, u, r in kept["results"]})

class Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kw):
        t = S["tool"] or {}
        self._registration = (Registration().set_iss(BASE).set_client_id(t.get("client_id", "")).set_deployment_id(t.get("deployment_id", ""))
            .set_launch_url(t.get("launch_url", "")).set_oidc_login_url(t.get("oidc_login_url", ""))
            .set_tool_key_set_url(t.get("jwks_url", "")).set_platform_public_key(PUB).set_platform_private_key(PRIV))
    def get_registration_by_params(self, **kw): return self._registration

class Req(Request):
    def build_metadata(self, r): return r

class Login(OIDCLoginAbstract):
    def set_lti_message_hint(self, **kw): self._lti_message_hint = kw["hint"]
    def get_redirect(self, url): return url

class Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, d, **kw):
        return ('<form method="POST" action="%s" id="f"><input type="hidden" name="id_token" value="%s">'
                '<input type="hidden" name="state" value="%s"></form><script>document.getElementById("f").submit()</script>'
                % (d["launch_url"], d["id_token"], d["state"]))

class Ags(AssignmentsGradesService):
    def find_lineitems(self, page=1, limit=None, line_item_id=None, resource_link_id=None, resource_id=None, tag=None):
        items = [i for i in S["lineitems"].values() if resource_link_id in (None, i.get("resourceLinkId")) and resource_id in (None, i.get("resourceId"))]
        return {"content": items, "has_next": False}
    def find_lineitem(self, line_item_id): return S["lineitems"][line_item_id]
    def create_lineitem(self, d):
        n = str(len(S["lineitems"]) + 1); d = dict(d, id=f"{BASE}/ags/c1/lineitems/{n}"); S["lineitems"][n] = d; return d
    def update_lineitem(self, d): return d
    def delete_lineitem(self, i): S["lineitems"].pop(i, None)
    def get_results(self, line_item_id, page=1, limit=None, user_id=None): return {"content": [], "has_next": False}
    def update_score(self, li, s):
        prev = S["results"].get((li, s["userId"]))
        S["scores"].append(dict(s, lineitem=li))
        if prev and prev["timestamp"] >= s["timestamp"]: return UpdateScoreStatus.OLD_TIMESTAMP
        S["results"][(li, s["userId"])] = s; return UpdateScoreStatus.SUCCESS

class Nrps(NamesRoleProvisioningService):
    def get_context_by_id(self): return Context(id="c1", label="R101", title="Rust 101")
    def get_member_data_page(self, page=1, limit=None, role=None, since=None, rlid=None):
        return {"content": list(S["roster"].values()), "has_next": False}

class H(BaseHTTPRequestHandler):
    def reply(self, code, body, ctype="application/json"):
        b = body if isinstance(body, (bytes, str)) and not ctype.endswith("json") else json.dumps(body)
        b = b.encode() if isinstance(b, str) else b
        self.send_response(code); self.send_header("Content-Type", ctype); self.send_header("Content-Length", str(len(b)))
        self.end_headers(); self.wfile.write(b)
    def req(self):
        u = urlparse(self.path); n = int(self.headers.get("Content-Length") or 0); raw = self.rfile.read(n) if n else b""
        ct = self.headers.get("Content-Type", ""); form = {k: v[0] for k, v in parse_qs(raw.decode()).items()} if "form" in ct else {}
        return u.path, Req({"method": self.command, "get_data": {k: v[0] for k, v in parse_qs(u.query).items()}, "form_data": form,
                            "headers": {"-".join(w.capitalize() for w in k.split("-")): v for k, v in self.headers.items()},  # HTTP names are case-blind; the library asks for "Authorization" "content_type": ct, "path": u.path,
                            "json": json.loads(raw) if raw and "json" in ct else None})
    def service(self, resp):
        body = resp.result["content"] if isinstance(resp.result, dict) and "content" in resp.result else resp.result  # as the library's Django wrapper does
        self.reply(resp.code, body if 200 <= resp.code < 300 else {"error": resp.message}, resp.media_type)
    def do_GET(self): self.route()
    def do_POST(self): self.route()
    def route(self):
        path, r = self.req(); conf = Conf(); q = r.get_data
        with LOCK:
            try: self.dispatch(path, r, conf, q)
            except Exception as e:  # jwt errors etc.: one line in the log, 401/400 to the caller
                S["log"].append(f"{path}: {type(e).__name__}: {e}"); self.reply(401 if "token" in path or "/ags" in path or "/nrps" in path else 400, {"error": str(e)})
            save()
    def dispatch(self, path, r, conf, q):
        p = path.split("/")
        if path == "/_test/tool": S["tool"] = r.json; return self.reply(200, {"ok": True})
        if path == "/_test/roster": S["roster"] = {m["user_id"]: m for m in r.json}; return self.reply(200, {"ok": True})
        if path == "/_test/result":  # the gradebook holds a result of this time for the user (a teacher typed one), or none
            for li in S["lineitems"]:
                if r.json.get("timestamp"): S["results"][(li, r.json["user"])] = {"userId": r.json["user"], "timestamp": r.json["timestamp"]}
                else: S["results"].pop((li, r.json["user"]), None)
            return self.reply(200, {"ok": True})
        if path == "/_test/tamper": S["tamper"] = r.json.get("mode"); return self.reply(200, {"ok": True})
        if path == "/_test/state": return self.reply(200, {"scores": S["scores"], "lineitems": S["lineitems"], "log": S["log"], "tool": S["tool"]})
        if path == "/jwks": return self.reply(200, conf.get_jwks())
        if path == "/.well-known/openid-configuration":
            return self.reply(200, {"issuer": BASE, "authorization_endpoint": BASE + "/auth", "token_endpoint": BASE + "/token",
                "jwks_uri": BASE + "/jwks", "registration_endpoint": BASE + "/register", "token_endpoint_auth_methods_supported": ["private_key_jwt"],
                "token_endpoint_auth_signing_alg_values_supported": ["RS256"], "id_token_signing_alg_values_supported": ["RS256"],
                "scopes_supported": ["openid"], "response_types_supported": ["id_token"], "subject_types_supported": ["public"], "claims_supported": ["sub", "iss", "name", "email"],
                "https://purl.imsglobal.org/spec/lti-platform-configuration": {"product_family_code": "lti1p3platform-test", "version": "0.1.8",
                    "messages_supported": [{"type": "LtiResourceLinkRequest"}]}})
        if path == "/register":  # Dynamic Registration: the library has none, so this is the platform's side by hand
            if r.headers.get("Authorization") != "Bearer " + S["reg_token"]: return self.reply(401, {"error": "bad registration token"})
            t = r.json; cfg = t["https://purl.imsglobal.org/spec/lti-tool-configuration"]
            S["tool"] = {"client_id": uuid.uuid4().hex, "deployment_id": "d1", "oidc_login_url": t["initiate_login_uri"],
                         "launch_url": t["redirect_uris"][0], "redirect_uris": t["redirect_uris"], "jwks_url": t["jwks_uri"]}
            cfg = dict(cfg, deployment_id="d1"); S["reg_token"] = uuid.uuid4().hex  # single use
            return self.reply(200, dict(t, client_id=S["tool"]["client_id"], **{"https://purl.imsglobal.org/spec/lti-tool-configuration": cfg}))
        if path == "/_test/register-url": return self.reply(200, {"url": S["tool_register_url"] if "tool_register_url" in S else None,
            "openid_configuration": BASE + "/.well-known/openid-configuration", "registration_token": S["reg_token"]})
        if p[1:2] == ["course"]:  # /course/<user>/<resource link>[?frame=1]: the LMS page a student clicks
            lg = Login(None, conf); lg.set_lti_message_hint(hint=p[3]); url = lg.initiate_login(p[2])
            page = f'<iframe src="{url}" width="900" height="600"></iframe>' if q.get("frame") else f'<script>location="{url}"</script>'
            return self.reply(200, "<!doctype html>" + page, "text/html")
        if path == "/auth":
            launch = Launch(r, conf); t = S["tool"]
            if q.get("redirect_uri") not in t.get("redirect_uris", [t["launch_url"]]): return self.reply(400, {"error": "redirect_uri not registered"})
            m = S["roster"].get(q.get("login_hint"), {"user_id": q.get("login_hint"), "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]})
            launch.set_user_data(m["user_id"], m["roles"], m.get("name"), m.get("email"))
            launch.set_resource_link_claim(q.get("lti_message_hint"), title="Assignment")
            launch.set_launch_context_claim("c1", ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"], "Rust 101", "R101")
            launch.set_ags(BASE + "/ags/c1/lineitems", None, True); launch.set_nrps(BASE + "/nrps/c1/memberships")
            mode = S.pop("tamper", None); S["tamper"] = None
            if mode == "wrong_aud": launch.set_extra_claims({"aud": "someone-else", "azp": "someone-else"})
            if mode == "wrong_deployment": launch.set_extra_claims({"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "not-registered"})
            if mode == "expired": launch.set_id_token_expiration(-120)
            html = launch.lti_launch()
            if mode in ("bad_signature", "unknown_kid"):
                tok = html.split('name="id_token" value="')[1].split('"')[0]; claims = jwt.decode(tok, options={"verify_signature": False})
                other, _ = pem_pair(); kid = jwt.get_unverified_header(tok)["kid"] if mode == "bad_signature" else "kid-nobody-knows"
                html = html.replace(tok, jwt.encode(claims, other, "RS256", headers={"kid": kid}))
            return self.reply(200, html, "text/html")
        if path == "/token":
            f = r.form_data; conf.get_registration().set_tool_key_set(None)  # refetch the tool's JWKS each time (key rotation)
            c = jwt.decode(f.get("client_assertion", ""), options={"verify_signature": False})
            cid = S["tool"]["client_id"]
            if c.get("iss") != cid or c.get("sub") != cid or c.get("aud") not in (BASE + "/token", [BASE + "/token"]) or c.get("jti") in S["jtis"]:
                return self.reply(401, {"error": "invalid_client"})
            tok = conf.get_access_token(f); S["jtis"].add(c["jti"]); return self.reply(200, tok)
        if p[1:2] == ["ags"]:
            svc = Ags(r, conf, BASE + "/ags/c1/lineitems")
            if len(p) == 4: return self.service(svc.handle_create_lineitem() if self.command == "POST" else svc.handle_get_lineitems())
            if len(p) == 5: return self.service(svc.handle_get_lineitem(p[4]))
            if len(p) == 6 and p[5] == "scores": return self.service(svc.handle_update_score(p[4]))
        if path == "/nrps/c1/memberships": return self.service(Nrps(r, conf, BASE + "/nrps/c1/memberships").handle_get_members())
        self.reply(404, {"error": "no such route " + path})
    def log_message(self, *a): pass

if __name__ == "__main__":
    STATE = sys.argv[2] if len(sys.argv) > 2 else None; load()
    srv = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), H)
    BASE = f"http://localhost:{srv.server_address[1]}"  # "localhost": another site than the tool's 127.0.0.1
    print(json.dumps({"url": BASE}), flush=True); srv.serve_forever()
