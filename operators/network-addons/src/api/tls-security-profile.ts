import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';

/** The TLS 1.3 suites (IANA names): the Modern profile's ciphers. */
export const MODERN_CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
] as const;

/** Modern's and TLS 1.2's ECDHE AEAD ciphers: the Intermediate profile's. */
export const INTERMEDIATE_CIPHERS = [
  ...MODERN_CIPHERS,
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
] as const;

/**
 * Cipher names (OpenSSL spelling, TLS 1.3 names as IANA) an OpenShift TLS profile may list, in
 * the Old profile's order (every one).
 */
export const TLS_PROFILE_CIPHERS = [
  ...INTERMEDIATE_CIPHERS,
  'ECDHE-ECDSA-AES128-SHA256',
  'ECDHE-RSA-AES128-SHA256',
  'ECDHE-ECDSA-AES128-SHA',
  'ECDHE-RSA-AES128-SHA',
  'ECDHE-ECDSA-AES256-SHA',
  'ECDHE-RSA-AES256-SHA',
  'AES128-GCM-SHA256',
  'AES256-GCM-SHA384',
  'AES128-SHA256',
  'AES128-SHA',
  'AES256-SHA',
  'DES-CBC3-SHA',
] as const;

export const TLS_VERSIONS = ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'] as const;
export type TlsVersion = (typeof TLS_VERSIONS)[number];

export const TLS_PROFILE_TYPES = ['Old', 'Intermediate', 'Modern', 'Custom'] as const;
export type TlsProfileType = (typeof TLS_PROFILE_TYPES)[number];

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

const presetProfile = (description: string) => Type.Object({}, { nullable: true, description });

export const tlsSecurityProfileSchema = Type.Object(
  {
    type: Type.Optional(
      literals(
        TLS_PROFILE_TYPES,
        'Old, Intermediate, Modern (Mozilla server-side TLS profiles) or Custom (ciphers and minimum version given in `custom`).',
      ),
    ),
    old: Type.Optional(presetProfile('The Old profile (TLS 1.0+, wide cipher list).')),
    intermediate: Type.Optional(presetProfile('The Intermediate profile (TLS 1.2+).')),
    modern: Type.Optional(presetProfile('The Modern profile (TLS 1.3 only).')),
    custom: Type.Optional(
      Type.Object(
        {
          ciphers: Type.Optional(
            Type.Array(literals(TLS_PROFILE_CIPHERS, 'A cipher suite name.'), {
              description: 'Cipher suites the components accept (TLS 1.3 suites are not configurable).',
            }),
          ),
          minTLSVersion: Type.Optional(literals(TLS_VERSIONS, 'Lowest TLS version the components accept.')),
        },
        { nullable: true, description: 'Ciphers and minimum TLS version of a Custom profile.' },
      ),
    ),
  },
  {
    nullable: true,
    description:
      'TLS settings (OpenShift config/v1 TLSSecurityProfile) for the components that serve TLS: KubeMacPool and kubevirt-ipam-controller. Empty means Modern.',
  },
);

export type TlsSecurityProfile = Static<typeof tlsSecurityProfileSchema>;
