"""What stops a page: each has a page of its own (app/inspect/mount.py), never problem+json."""


class PageNotFound(Exception):
    """What the page names does not exist for this tenant: the 404 page."""


class LoginRequired(Exception):
    """The request carries no valid key: the login page instead."""


class CrossSiteForm(Exception):
    """A form posted from another site's page (a forged login or logout): the 403 page."""
