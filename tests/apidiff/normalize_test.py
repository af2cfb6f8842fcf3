#!/usr/bin/env python3
"""The differential API suite's normalization rules (normalize.py) and comparison (compare.py), on
hand-made answers: what must be equal after normalization is, and what a client can tell apart
stays apart. Usage: normalize_test.py (exit 0 all passed, 1 a failure)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import normalize  # noqa: E402

U1, U2, U3 = ("11111111-2222-4333-8444-555555555555", "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee",
              "99999999-8888-4777-8666-555555555555")


def obj(name, uid, rv, ns="n", **extra):
    meta = {"name": name, "namespace": ns, "uid": uid, "resourceVersion": rv,
            "creationTimestamp": "2030-05-06T07:08:09Z"}
    meta.update(extra)
    return {"kind": "ConfigMap", "metadata": meta}


def run(*records):
    recs = [dict({"name": "s%d" % i, "status": 200, "headers": {}}, **r) for i, r in enumerate(records)]
    return normalize.normalize(recs, {})


class Normalize(unittest.TestCase):
    def test_uids_become_the_name_of_their_object_everywhere(self):
        a = run({"body": obj("a", U1, "5")},
                {"body": obj("d", U2, "6", ownerReferences=[{"uid": U1, "name": "a"}])},
                {"body": {"kind": "Status", "message": "Precondition failed: UID in object meta: %s" % U1}})
        self.assertEqual(a[0]["body"]["metadata"]["uid"], "<uid n/a>")
        self.assertEqual(a[1]["body"]["metadata"]["ownerReferences"][0]["uid"], "<uid n/a>")
        self.assertEqual(a[2]["body"]["message"], "Precondition failed: UID in object meta: <uid n/a>")

    def test_a_failed_delete_precondition_quotes_no_resource_version(self):
        msg = ("Operation cannot be fulfilled on ConfigMap \"a\": the ResourceVersion in the precondition (237) "
               "does not match the ResourceVersion in record (239). The object might have been modified")
        a = run({"body": {"kind": "Status", "message": msg}})
        self.assertEqual(a[0]["body"]["message"], msg.replace("(237)", "(<rv>)").replace("(239)", "(<rv>)"))

    def test_the_root_ca_bundle_is_each_servers_own(self):
        cm = obj("kube-root-ca.crt", U1, "5")
        cm["data"] = {"ca.crt": "-----BEGIN CERTIFICATE-----\n..."}
        other = obj("c", U2, "6")
        other["data"] = {"ca.crt": "kept"}
        a = run({"body": cm}, {"body": other})
        self.assertEqual(a[0]["body"]["data"], {"ca.crt": "<ca bundle>"})
        self.assertEqual(a[1]["body"]["data"], {"ca.crt": "kept"})

    def test_a_recreated_object_has_a_different_uid_placeholder(self):
        a = run({"body": obj("a", U1, "5")}, {"body": obj("a", U2, "9")})
        self.assertNotEqual(a[0]["body"]["metadata"]["uid"], a[1]["body"]["metadata"]["uid"])

    def test_a_uid_no_object_carried_is_kept(self):
        a = run({"body": {"message": "uid %s" % U3}})
        self.assertIn(U3, a[0]["body"]["message"])

    def test_times_become_placeholders_but_the_corpus_times_stay(self):
        a = run({"body": {"t": "2030-05-06T07:08:09.123456Z", "sent": "2001-02-03T04:05:00Z", "x": "2030"}})
        self.assertEqual(a[0]["body"], {"t": "<time>", "sent": "2001-02-03T04:05:00Z", "x": "2030"})

    def test_resource_versions_keep_their_order_within_a_record_and_saved_names(self):
        events = [{"type": "ADDED", "object": obj("a", U1, "120")}, {"type": "MODIFIED", "object": obj("a", U1, "99")},
                  {"type": "BOOKMARK", "object": {"kind": "ConfigMap", "metadata": {"resourceVersion": "500"}}}]
        fake = run({"events": events, "vars": {"rv_x": "99"}})[0]["events"]
        self.assertEqual([e["object"]["metadata"]["resourceVersion"] for e in fake], ["<rv 1>", "<rv x>", "<bookmark rv>"])
        real = run({"events": [{"type": "ADDED", "object": obj("a", U1, "7")}], "vars": {}})[0]["events"]
        self.assertEqual(real[0]["object"]["metadata"]["resourceVersion"], "<rv 1>")

    def test_a_list_resource_version_and_continue_are_opaque_but_present(self):
        body = {"kind": "ConfigMapList", "metadata": {"resourceVersion": "77", "continue": "abc"}, "items": []}
        self.assertEqual(run({"body": body})[0]["body"]["metadata"], {"resourceVersion": "<list rv>",
                                                                      "continue": "<continue>"})
        body = {"kind": "ConfigMapList", "metadata": {"resourceVersion": "77"}, "items": []}
        self.assertNotIn("continue", run({"body": body})[0]["body"]["metadata"])

    def test_generated_names_are_replaced_wherever_they_appear(self):
        a = run({"body": obj("gen-x7k2p", U1, "3", generateName="gen-")},
                {"body": {"message": 'configmaps "gen-x7k2p" not found'}})
        self.assertEqual(a[0]["body"]["metadata"]["name"], "gen-<generated>")
        self.assertEqual(a[1]["body"]["message"], 'configmaps "gen-<generated>" not found')

    def test_rv_numbers_in_messages(self):
        a = run({"body": {"message": "too old resource version: 1 (2345)"}})
        self.assertEqual(a[0]["body"]["message"], "too old resource version: <rv> (<rv>)")

    def test_table_age_cells(self):
        table = {"kind": "Table", "metadata": {"resourceVersion": "1"}, "columnDefinitions": [{"name": "Name"}, {"name": "Age"}],
                 "rows": [{"cells": ["a", "5s"]}]}
        self.assertEqual(run({"body": table})[0]["body"]["rows"][0]["cells"], ["a", "<age>"])

    def test_select_picks_list_elements_by_key(self):
        body = {"resources": [{"name": "pods", "kind": "Pod"}, {"name": "configmaps"}], "x": {"a.b": 1}}
        self.assertEqual(normalize.select(body, ["resources.name=pods", ["x", "a.b"], "missing"]),
                         {"resources.name=pods": {"name": "pods", "kind": "Pod"}, "x.a.b": 1, "missing": None})


class Compare(unittest.TestCase):
    def test_diff_names_the_differing_paths(self):
        d = compare.diff({"status": 200, "body": {"a": 1, "b": [1, 2]}}, {"status": 200, "body": {"a": 2, "b": [1, 3], "c": 0}})
        self.assertEqual([p for p, _, _ in d], ["body.a", "body.b[1]", "body.c"])
        self.assertEqual(compare.diff({"x": [1]}, {"x": [1]}), [])

    def test_a_departure_pattern_covers_its_prefix(self):
        saved = compare.departures.DEPARTURES
        compare.departures.DEPARTURES = [("discovery/*", "why")]
        try:
            self.assertEqual(compare.departures.departure_of("discovery/api"), ("discovery/*", "why"))
            self.assertEqual(compare.departures.departure_of("crud/get"), (None, None))
        finally:
            compare.departures.DEPARTURES = saved


if __name__ == "__main__":
    unittest.main()
