//! torch serializes its `_Union` dataclasses as a JSON object with exactly one key, the name of the
//! set field. [`json_union!`] declares such an enum with serde impls that read that shape and keep a
//! key from a newer schema as `Unknown(key)` instead of failing, so a file that uses a new argument
//! kind still opens and only the code that meets the unknown value has to report it.

/// Declares a one-key-object union: `json_union! { pub enum Name { "as_int" => AsInt(i64), ... } }`.
macro_rules! json_union {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $key:literal => $variant:ident($ty:ty), )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub enum $name {
            $( $(#[$vmeta])* $variant($ty), )*
            /// A key this reader does not know (from a newer schema); its value was skipped.
            Unknown(String),
        }

        impl $name {
            /// The JSON key of this variant.
            pub fn key(&self) -> &str {
                match self {
                    $( $name::$variant(_) => $key, )*
                    $name::Unknown(key) => key,
                }
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(Some(1))?;
                match self {
                    $( $name::$variant(value) => map.serialize_entry($key, value)?, )*
                    $name::Unknown(key) => map.serialize_entry(key, &())?,
                }
                map.end()
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct UnionVisitor;
                impl<'de> serde::de::Visitor<'de> for UnionVisitor {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(concat!("a ", stringify!($name), " object with exactly one key"))
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let key = match map.next_key::<$crate::schema::union::UnionKey<'de>>()? {
                            Some(key) => key.0,
                            None => return Err(serde::de::Error::custom(concat!("empty ", stringify!($name), " object"))),
                        };
                        let value = match &*key {
                            $( $key => $name::$variant(map.next_value()?), )*
                            _ => {
                                map.next_value::<serde::de::IgnoredAny>()?;
                                $name::Unknown(key.into_owned())
                            }
                        };
                        if map.next_key::<serde::de::IgnoredAny>()?.is_some() {
                            return Err(serde::de::Error::custom(concat!(stringify!($name), " object with more than one key")));
                        }
                        Ok(value)
                    }
                }
                deserializer.deserialize_map(UnionVisitor)
            }
        }
    };
}

pub(crate) use json_union;

/// A union key, borrowed from the input when it has no escapes.
pub(crate) struct UnionKey<'de>(pub(crate) std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for UnionKey<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = UnionKey<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                key: &'de str,
            ) -> Result<Self::Value, E> {
                Ok(UnionKey(std::borrow::Cow::Borrowed(key)))
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Self::Value, E> {
                Ok(UnionKey(std::borrow::Cow::Owned(key.to_owned())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}
