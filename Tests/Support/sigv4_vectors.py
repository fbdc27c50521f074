#!/usr/bin/env python3
"""Recomputes, with botocore, the Signature Version 4 vectors in S3MediaStoreTests.swift.

Usage: python3 sigv4_vectors.py   (needs botocore, which comes with boto3 and moto)

Prints the Authorization header for
  * the four examples of the S3 API reference ("Signature Calculations for the Authorization
    Header: Transferring Payload in a Single Chunk"): GET Object, PUT Object, GET Bucket
    Lifecycle, GET Bucket (List Objects), and
  * the path-style PUT that signsAPathStylePutLikeBotocore checks,
each signed by botocore's own S3SigV4Auth, so the expected values in the Swift tests do not come
from the code they test. The request carries its x-amz-date and x-amz-content-sha256 headers and
botocore computes canonical request, string to sign and signature from it (the way moto checks a
signature); add_auth is not used because it drops x-amz-date when a Date header is present, and
the PUT Object example signs both.
"""

import datetime
import hashlib

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials


def authorization(method, url, headers, body, access_key, secret, region, when):
    amz_date = when.strftime("%Y%m%dT%H%M%SZ")
    request = AWSRequest(method=method, url=url, headers=dict(headers), data=body)
    request.headers["X-Amz-Date"] = amz_date
    request.headers["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
    request.context["timestamp"] = amz_date
    signer = S3SigV4Auth(Credentials(access_key, secret), "s3", region)
    canonical_request = signer.canonical_request(request)
    signature = signer.signature(signer.string_to_sign(request, canonical_request), request)
    scope = f"{amz_date[:8]}/{region}/s3/aws4_request"
    return (
        f"AWS4-HMAC-SHA256 Credential={access_key}/{scope}, "
        f"SignedHeaders={signer.signed_headers(signer.headers_to_sign(request))}, Signature={signature}"
    )


def main():
    example_key = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    example_time = datetime.datetime(2013, 5, 24)
    bucket = "https://examplebucket.s3.amazonaws.com"
    examples = [
        ("GET Object", "GET", bucket + "/test.txt", {"Range": "bytes=0-9"}, b""),
        (
            "PUT Object",
            "PUT",
            bucket + "/test%24file.text",
            {"Date": "Fri, 24 May 2013 00:00:00 GMT", "x-amz-storage-class": "REDUCED_REDUNDANCY"},
            b"Welcome to Amazon S3.",
        ),
        ("GET Bucket Lifecycle", "GET", bucket + "/?lifecycle", {}, b""),
        ("GET Bucket (List Objects)", "GET", bucket + "/?max-keys=2&prefix=J", {}, b""),
    ]
    for name, method, url, headers, body in examples:
        print(f"{name}: {authorization(method, url, headers, body, *example_key, 'us-east-1', example_time)}")

    print(
        "Path-style PUT: "
        + authorization(
            "PUT",
            "http://127.0.0.1:9000/pawpack-media/pets/2f0c/ph%20oto%2B1.jpg",
            {"Content-Type": "image/jpeg"},
            bytes(range(256)),
            "AKIAPAWPACKEXAMPLE01",
            "pawpack/Secret+Key=EXAMPLE",
            "eu-central-1",
            datetime.datetime(2026, 3, 14, 15, 9, 26),
        )
    )


if __name__ == "__main__":
    main()
