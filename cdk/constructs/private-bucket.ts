/** A bucket only CloudFront reads (origin access control): no public access, S3-managed encryption, TLS only, no ACLs. */
import { BlockPublicAccess, Bucket, BucketEncryption, type BucketProps, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';

export const privateBucket = (scope: Construct, id: string, props: BucketProps = {}): Bucket =>
  new Bucket(scope, id, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    ...props,
  });
