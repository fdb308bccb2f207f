"""The offline `rules` belief backend: presence, witnessed events and told beliefs read off a
stored screenplay by rules (`engine`), its story claims and presence readers, and the film
annotation (`film`)."""
